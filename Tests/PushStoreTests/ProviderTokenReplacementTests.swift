import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The compare-and-set by which nodes sharing one database end with one provider token per
/// key: a renewal replaces the token only while the archive still holds the one the node read.
final class ProviderTokenReplacementTests: StoreTestCase {
    private func token(_ text: String, issuedAt: Int64, fingerprint: String = "f1") -> ArchivedProviderToken {
        ArchivedProviderToken(teamID: "T", keyID: "K", keyFingerprint: fingerprint, token: text, issuedAt: issuedAt)
    }

    func testTheFirstRenewalWinsAndTheOthersGetItsToken() throws {
        let store = try makeStore()
        let first = token("first", issuedAt: 100)
        XCTAssertEqual(try store.replaceProviderToken(first, expecting: nil), first, "no token yet: stored")
        XCTAssertEqual(
            try store.replaceProviderToken(token("rival", issuedAt: 100), expecting: nil), first,
            "another node's first token is in place: this one is not stored")

        // Both nodes read `first` and renew it.
        let renewedByA = token("a", issuedAt: 3_100)
        XCTAssertEqual(try store.replaceProviderToken(renewedByA, expecting: first), renewedByA)
        XCTAssertEqual(try store.replaceProviderToken(token("b", issuedAt: 3_101), expecting: first), renewedByA)
        XCTAssertEqual(try store.archivedProviderToken(teamID: "T", keyID: "K"), renewedByA)

        // A replaced key's token replaces the old key's, the same way.
        let otherKey = token("other key", issuedAt: 3_200, fingerprint: "f2")
        XCTAssertEqual(try store.replaceProviderToken(otherKey, expecting: renewedByA), otherKey)
        XCTAssertEqual(try store.archivedProviderToken(teamID: "T", keyID: "K"), otherKey)
    }

    /// Threads of several "nodes" (stores) replacing the same token at once: exactly one wins,
    /// and every one of them is told the winner.
    func testConcurrentRenewalsEndWithOneToken() throws {
        let stores = try (0..<3).map { _ in try makeStore() }
        let first = token("first", issuedAt: 100)
        _ = try stores[0].replaceProviderToken(first, expecting: nil)
        let answers = Locked<[String]>([])
        let group = DispatchGroup()
        for (index, store) in stores.enumerated() {
            for thread in 0..<3 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    let mine = ArchivedProviderToken(
                        teamID: "T", keyID: "K", keyFingerprint: "f1", token: "node\(index)-\(thread)", issuedAt: 3_100)
                    let answer = (try? store.replaceProviderToken(mine, expecting: first).token) ?? "error"
                    answers.withLock { $0.append(answer) }
                }.start()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        let all = answers.withLock { $0 }
        XCTAssertEqual(all.count, 9)
        XCTAssertEqual(Set(all).count, 1, "one winner, told to all: \(all)")
        XCTAssertNotEqual(all.first, "error")
        XCTAssertEqual(try stores[1].archivedProviderToken(teamID: "T", keyID: "K")?.token, all.first)
    }
}
