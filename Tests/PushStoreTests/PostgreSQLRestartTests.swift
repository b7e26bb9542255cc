import Foundation
import PushCore
import PushTesting
import XCTest

@testable import PushStore

/// A store whose PostgreSQL server stops and starts again under it: calls made while it is
/// down fail with `StoreUnavailable` (the engine-neutral error handlers answer with 503), the
/// pool drops the connections the restart broke, and the first call after the restart works,
/// without a new store. On a cluster of the test's own, in `scripts/test`'s PostgreSQL pass.
final class PostgreSQLRestartTests: XCTestCase, RunsOnPostgreSQL {
    final class Changes: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [StoreAvailabilityChange] = []

        func record(_ change: StoreAvailabilityChange) {
            lock.lock()
            recorded.append(change)
            lock.unlock()
        }

        var kinds: [String] {
            lock.lock()
            defer { lock.unlock() }
            return recorded.map {
                switch $0 {
                case .lost: return "lost"
                case .recovered: return "recovered"
                }
            }
        }
    }

    func testThePoolReconnectsAfterItsServerRestarts() throws {
        try XCTSkipIf(StoreTestCase.engine != .postgresql, "runs in the PostgreSQL pass (PUSHGATE_TEST_DATABASE_URL)")
        try XCTSkipUnless(ThrowawayPostgreSQL.isAvailable, "needs PostgreSQL's server binaries")
        let server = try ThrowawayPostgreSQL()
        let changes = Changes()
        let store = PostgreSQLStore(
            configuration: PostgreSQLConfiguration(url: server.url, poolSize: 3),
            availabilityChanged: { changes.record($0) })
        try store.migrate(directory: StoreTestCase.postgreSQLDirectory)
        try store.addSenderKey(name: "before", digest: "d-before")
        // Every connection of the pool in use once, so that the restart breaks them all.
        try concurrently(3) { XCTAssertEqual(try store.senderKeyName(digest: "d-before"), "before") }

        try server.stop()
        for _ in 0..<3 {
            XCTAssertThrowsError(try store.senderKeyName(digest: "d-before")) { error in
                XCTAssertTrue(error is StoreUnavailable, "\(error)")
            }
            XCTAssertThrowsError(try store.addSenderKey(name: "during", digest: "d-during")) { error in
                XCTAssertTrue(error is StoreUnavailable, "\(error)")
            }
        }
        XCTAssertEqual(changes.kinds, ["lost"], "one episode, reported once")

        try server.start()
        // The first call after the restart already works: the broken connections are not lent.
        XCTAssertEqual(try store.senderKeyName(digest: "d-before"), "before")
        try concurrently(3) { XCTAssertEqual(try store.senderKeyName(digest: "d-before"), "before") }
        try store.addSenderKey(name: "after", digest: "d-after")
        XCTAssertEqual(try store.senderKeys().map(\.name), ["after", "before"])
        XCTAssertEqual(changes.kinds, ["lost", "recovered"])
    }

    func testAConnectionFailureIsStoreUnavailableAndOtherErrorsStayTheirOwn() throws {
        try XCTSkipIf(StoreTestCase.engine != .postgresql, "runs in the PostgreSQL pass (PUSHGATE_TEST_DATABASE_URL)")
        try XCTSkipUnless(ThrowawayPostgreSQL.isAvailable, "needs PostgreSQL's server binaries")
        let server = try ThrowawayPostgreSQL()
        let store = PostgreSQLStore(configuration: PostgreSQLConfiguration(url: server.url))
        try store.migrate(directory: StoreTestCase.postgreSQLDirectory)
        try store.addSenderKey(name: "k", digest: "d")
        // A refusal of the database's own is not an outage.
        XCTAssertThrowsError(try store.addSenderKey(name: "k", digest: "d2")) { error in
            XCTAssertFalse(error is StoreUnavailable, "\(error)")
        }
        // A server terminating the session (as at a shutdown) is one.
        XCTAssertThrowsError(
            try store.withDatabase { connection in
                try connection.execute("SELECT pg_terminate_backend(pg_backend_pid())")
            }
        ) { error in
            XCTAssertTrue(error is StoreUnavailable, "\(error)")
        }
        XCTAssertEqual(try store.senderKeyName(digest: "d"), "k", "the next call gets a working connection")
    }

    /// Engine-independent: an episode is reported once at its start and once at its end, and a
    /// call that was under way when it began does not end it.
    func testAnEpisodeIsReportedOnceAndEndedOnlyByACallThatBeganInIt() {
        let changes = Changes()
        let episode = UnavailabilityEpisode(report: { changes.record($0) })
        let before = UnavailabilityEpisode.now()
        episode.succeeded(startedAt: before)
        XCTAssertEqual(changes.kinds, [], "no episode, nothing to end")
        episode.failed(StoreUnavailable(reason: "refused"))
        episode.failed(StoreUnavailable(reason: "refused again"))
        episode.succeeded(startedAt: before)
        XCTAssertEqual(changes.kinds, ["lost"], "a call begun before the outage ends nothing")
        episode.succeeded(startedAt: UnavailabilityEpisode.now())
        episode.succeeded(startedAt: UnavailabilityEpisode.now())
        XCTAssertEqual(changes.kinds, ["lost", "recovered"])
    }

    /// Runs `body` on `count` threads at once and waits for all.
    private func concurrently(_ count: Int, _ body: @escaping @Sendable () throws -> Void) throws {
        let group = DispatchGroup()
        let failures = Changes()
        for _ in 0..<count {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do { try body() } catch { failures.record(.lost(reason: "\(error)")) }
            }
        }
        group.wait()
        XCTAssertEqual(failures.kinds, [])
    }
}
