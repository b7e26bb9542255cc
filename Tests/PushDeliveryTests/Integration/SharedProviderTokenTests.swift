import PushTesting
import Foundation
import PushCore
import PushCrypto
import PushStore
import XCTest

@testable import PushDelivery

/// Nodes sharing one database use one APNs provider token per key: when it is due, one node
/// renews it and the others adopt that token, however many renew at the same moment. On the
/// PostgreSQL that `PUSHGATE_TEST_DATABASE_URL` names, else on one SQLite file.
final class SharedProviderTokenTests: XCTestCase, RunsOnPostgreSQL {
    private var database: SharedDatabase!
    private let clock = ManualClock()
    private let key = try! ProviderKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: TestKeys.apnsKey)

    override func setUpWithError() throws {
        database = try SharedDatabase(requirePostgreSQL: false)
    }

    override func tearDown() {
        database?.drop()
        super.tearDown()
    }

    /// Every thread of two nodes asks for the token at once; returns what each was given.
    private func askConcurrently(_ caches: [ProviderTokenCache], threadsEach: Int = 4) -> [String] {
        let tokens = Locked<[String]>([])
        let group = DispatchGroup()
        for cache in caches {
            for _ in 0..<threadsEach {
                group.enter()
                Thread { [key] in
                    defer { group.leave() }
                    do {
                        let token = try cache.token(for: key)
                        tokens.withLock { $0.append(token) }
                    } catch {
                        tokens.withLock { $0.append("error: \(error)") }
                    }
                }.start()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        return tokens.withLock { $0 }
    }

    func testTwoNodesRenewingAtOnceEndWithOneToken() throws {
        let caches = try (0..<2).map { _ in
            ProviderTokenCache(clock: clock.unixClock, archive: try database.makeStore(), logger: Fixtures.logger)
        }
        let first = askConcurrently(caches)
        XCTAssertEqual(Set(first).count, 1, "one token for both nodes: \(Set(first))")
        let store = try database.makeStore()
        XCTAssertEqual(try store.archivedProviderToken(teamID: key.teamID, keyID: key.keyID)?.token, first.first)

        // Fifty minutes on, both find it due at the same moment: still one new token.
        clock.advance(by: 50 * 60)
        let renewed = askConcurrently(caches)
        XCTAssertEqual(Set(renewed).count, 1, "one renewal for both nodes: \(Set(renewed))")
        XCTAssertNotEqual(renewed.first, first.first)
        XCTAssertEqual(try store.archivedProviderToken(teamID: key.teamID, keyID: key.keyID)?.token, renewed.first)
        XCTAssertTrue(try JWT.verify(try XCTUnwrap(renewed.first), publicKeyPEM: TestKeys.apnsPublicKey))
    }

    /// A node whose token is due reads the one another node renewed meanwhile instead of
    /// signing its own; a forced renewal (ExpiredProviderToken) another node already made is
    /// adopted too.
    func testANodeAdoptsTheTokenAnotherNodeRenewed() throws {
        let nodeA = ProviderTokenCache(clock: clock.unixClock, archive: try database.makeStore(), logger: Fixtures.logger)
        let nodeB = ProviderTokenCache(clock: clock.unixClock, archive: try database.makeStore(), logger: Fixtures.logger)
        let first = try nodeA.token(for: key)
        XCTAssertEqual(try nodeB.token(for: key), first)

        clock.advance(by: 50 * 60)
        let renewedByA = try nodeA.token(for: key)
        XCTAssertNotEqual(renewedByA, first)
        XCTAssertEqual(try nodeB.token(for: key), renewedByA, "read, not signed again")

        clock.advance(by: 5 * 60)
        let forced = try XCTUnwrap(try nodeB.renewedToken(for: key, replacing: renewedByA))
        XCTAssertNotEqual(forced, renewedByA)
        XCTAssertEqual(try nodeA.renewedToken(for: key, replacing: renewedByA), forced, "adopted, not renewed twice")
    }
}
