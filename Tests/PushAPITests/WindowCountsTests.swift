import PushAPI
import XCTest

/// The table under the login throttle and the new-device quota: expiry and eviction in age
/// order, from the front of its queue.
final class WindowCountsTests: XCTestCase {
    func testAFullTableDropsTheKeyQuietLongest() {
        var counts = WindowCounts<String>(windowSeconds: 60, capacity: 3)
        counts.record("a", at: 0)
        counts.record("b", at: 1)
        counts.record("c", at: 2)
        counts.record("a", at: 3)  // "a" is now the most recent: "b" is quiet longest
        counts.record("d", at: 4)
        XCTAssertEqual(counts.count, 3)
        XCTAssertFalse(counts.contains("b"))
        XCTAssertEqual(Array(counts.live("a", at: 4)), [0, 3])
        XCTAssertEqual(counts.oldest()?.key, "c")
    }

    func testExpiredKeysGoAndLiveTimesAreCut() {
        var counts = WindowCounts<String>(windowSeconds: 60, capacity: 10)
        counts.record("a", at: 0)
        counts.record("b", at: 10)
        counts.record("b", at: 70)
        counts.forgetExpired(at: 75)
        XCTAssertFalse(counts.contains("a"))
        XCTAssertEqual(Array(counts.live("b", at: 75)), [70])
        XCTAssertNil(counts.fullUntil("b", limit: 2, at: 75))
        XCTAssertEqual(counts.fullUntil("b", limit: 1, at: 75), 130)
    }

    /// A time taken back leaves its key's earlier time findable in age order.
    func testATakenBackTimeLeavesTheKeyInOrder() {
        var counts = WindowCounts<String>(windowSeconds: 60, capacity: 2)
        counts.record("a", at: 0)
        counts.record("b", at: 1)
        counts.record("a", at: 2)
        counts.remove(2, of: "a")
        XCTAssertEqual(counts.oldest()?.key, "a")
        counts.record("c", at: 3)
        XCTAssertEqual(counts.count, 2)
        XCTAssertFalse(counts.contains("a"), "the oldest went")
        counts.removeLatest(of: "b")
        XCTAssertFalse(counts.contains("b"))
    }

    /// Many events of few keys: the queue is rebuilt, nothing is lost.
    func testManyEventsOfOneKeyKeepItsTimes() {
        var counts = WindowCounts<Int>(windowSeconds: 1_000_000, capacity: 4)
        for n in 0..<5_000 { counts.record(n % 2, at: Double(n)) }
        XCTAssertEqual(counts.live(0, at: 5_000).count, 2_500)
        XCTAssertEqual(counts.oldest()?.key, 0)
        counts.forgetExpired(at: 1_004_998)
        XCTAssertEqual(counts.count, 1)
        XCTAssertEqual(counts.oldest()?.key, 1)
    }
}
