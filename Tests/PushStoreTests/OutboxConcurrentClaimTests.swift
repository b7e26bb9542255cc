import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

/// Workers claiming from one outbox at once, as the workers of several nodes on one
/// PostgreSQL database do: every row is claimed exactly once, whoever gets it.
final class OutboxConcurrentClaimTests: OutboxTestCase {
    func testConcurrentClaimsNeverHandOutARowTwice() throws {
        let store = try makeStore()
        let ids = try makeManyDevices(count: 300)
        XCTAssertEqual(try store.enqueue(Outbox.message, deviceIDs: ids), 300)

        let claimed = Locked<[Int64]>([])
        let errors = Locked<[String]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    while true {
                        // A lease far beyond `now`: a claimed row never comes due again here.
                        let batch = try store.claimDue(limit: 7, now: Outbox.storeNow, lease: 3_600_000)
                        if batch.isEmpty { return }
                        claimed.withLock { $0 += batch.map(\.id) }
                        XCTAssertEqual(Set(batch.map(\.attempts)), [1])
                    }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(errors.withLock { $0 }, [])
        let all = claimed.withLock { $0 }
        XCTAssertEqual(all.count, 300, "every row claimed")
        XCTAssertEqual(Set(all).count, 300, "no row claimed twice")
        XCTAssertEqual(try store.pendingCount(), 300, "claimed rows stay pending until completed")
    }
}
