import PushCore
import XCTest

@testable import PushStore

final class SenderKeyStoreTests: StoreTestCase {
    func testKeysAreFoundByDigestUntilRevoked() throws {
        let store = try makeStore()
        XCTAssertFalse(try store.hasValidSenderKeys())
        try store.addSenderKey(name: "pbx1", digest: "d1")
        try store.addSenderKey(name: "backend", digest: "d2")
        XCTAssertTrue(try store.hasValidSenderKeys())
        XCTAssertEqual(try store.senderKeyName(digest: "d1"), "pbx1")
        XCTAssertNil(try store.senderKeyName(digest: "nope"))

        XCTAssertTrue(try store.revokeSenderKey(name: "pbx1"))
        XCTAssertFalse(try store.revokeSenderKey(name: "pbx1"), "already revoked")
        XCTAssertFalse(try store.revokeSenderKey(name: "unknown"))
        XCTAssertNil(try store.senderKeyName(digest: "d1"), "a revoked key no longer opens anything")
        XCTAssertEqual(
            try store.senderKeys(),
            [
                SenderKey(name: "backend", createdAt: 1_700_000_000, revokedAt: nil),
                SenderKey(name: "pbx1", createdAt: 1_700_000_000, revokedAt: 1_700_000_000),
            ])
        XCTAssertTrue(try store.hasValidSenderKeys())
        XCTAssertTrue(try store.revokeSenderKey(name: "backend"))
        XCTAssertFalse(try store.hasValidSenderKeys(), "only valid keys count")
    }

    func testANameIsNeverReused() throws {
        let store = try makeStore()
        try store.addSenderKey(name: "pbx1", digest: "d1")
        _ = try store.revokeSenderKey(name: "pbx1")
        XCTAssertThrowsError(try store.addSenderKey(name: "pbx1", digest: "d3")) { error in
            XCTAssertEqual(error as? SenderKeyError, .duplicateName("pbx1"))
        }
    }

    /// Scopes come back as stored; an operator key exists only while one is valid.
    func testScopesAreStoredAndOperatorKeysCounted() throws {
        let store = try makeStore()
        let scoped = SenderScope(
            apps: [AppID("com.example.a")!, AppID("com.example.b")!], dialects: [.pnm2, .bridge], isOperator: false)
        try store.addSenderKey(name: "tenant-a", digest: "d1", scope: scoped)
        try store.addSenderKey(name: "legacy", digest: "d2")
        XCTAssertFalse(try store.hasValidOperatorKeys())
        try store.addSenderKey(name: "prometheus", digest: "d3", scope: SenderScope(dialects: [], isOperator: true))
        XCTAssertTrue(try store.hasValidOperatorKeys())

        XCTAssertEqual(try store.validSenderKey(digest: "d1")?.scope, scoped)
        XCTAssertEqual(try store.validSenderKey(digest: "d2")?.scope, .unrestricted, "a key without scope reaches everything")
        XCTAssertEqual(try store.validSenderKey(digest: "d3")?.scope, SenderScope(dialects: [], isOperator: true))
        XCTAssertEqual(try store.senderKeys().map(\.scope.isOperator), [false, true, false])

        XCTAssertTrue(try store.revokeSenderKey(name: "prometheus"))
        XCTAssertFalse(try store.hasValidOperatorKeys(), "a revoked operator key no longer guards the pages")
        XCTAssertNil(try store.validSenderKey(digest: "d3"))

        // `keys add --operator` alone: empty lists, which read back empty (none), not as
        // absent (every app and dialect).
        try store.addSenderKey(name: "scrape", digest: "d4", scope: .operatorOnly)
        XCTAssertEqual(try store.validSenderKey(digest: "d4")?.scope, .operatorOnly)
        XCTAssertEqual(try store.validSenderKey(digest: "d4")?.scope.sends, false)
    }
}

final class ProviderTokenArchiveStoreTests: StoreTestCase {
    func testAKeysTokenIsReplacedNotAdded() throws {
        let store = try makeStore()
        XCTAssertNil(try store.archivedProviderToken(teamID: "T", keyID: "K"))
        let first = ArchivedProviderToken(teamID: "T", keyID: "K", keyFingerprint: "f1", token: "jwt1", issuedAt: 10)
        try store.archiveProviderToken(first)
        XCTAssertEqual(try store.archivedProviderToken(teamID: "T", keyID: "K"), first)
        let second = ArchivedProviderToken(teamID: "T", keyID: "K", keyFingerprint: "f2", token: "jwt2", issuedAt: 20)
        try store.archiveProviderToken(second)
        XCTAssertEqual(try store.archivedProviderToken(teamID: "T", keyID: "K"), second)
        XCTAssertNil(try store.archivedProviderToken(teamID: "T", keyID: "other"))
    }
}
