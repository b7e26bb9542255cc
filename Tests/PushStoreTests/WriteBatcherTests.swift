import PushCore
import PushTesting
import Foundation
import XCTest

@testable import PushStore

/// The leader/follower batching that PostgreSQL's Token Reporter reports go through.
final class WriteBatcherTests: XCTestCase {
    func testALoneCallerRunsItsOwnItemAtOnce() throws {
        let batcher = WriteBatcher<Int>(maximumBatch: 8)
        let batches = Locked<[[Int]]>([])
        try batcher.submit(7) { batch in
            batches.withLock { $0.append(batch) }
            return batch.map { _ in nil }
        }
        XCTAssertEqual(batches.withLock { $0 }, [[7]])
    }

    /// Items queued while a batch runs go out together in the next one, each once, each caller
    /// getting its own outcome; no batch is larger than the bound.
    func testCallersQueuedMeanwhileShareTheNextBatchAndGetTheirOwnOutcome() throws {
        let batcher = WriteBatcher<Int>(maximumBatch: 4)
        let batches = Locked<[[Int]]>([])
        let firstBatchStarted = DispatchSemaphore(value: 0)
        let releaseFirstBatch = DispatchSemaphore(value: 0)
        let outcomes = Locked<[Int: String]>([:])
        struct Refused: Error, CustomStringConvertible { let item: Int; var description: String { "refused \(item)" } }
        let run: @Sendable ([Int]) -> [(any Error)?] = { batch in
            let isFirst = batches.withLock { batches in
                batches.append(batch)
                return batches.count == 1
            }
            if isFirst {
                firstBatchStarted.signal()
                releaseFirstBatch.wait()
            }
            return batch.map { $0 % 3 == 0 ? Refused(item: $0) : nil }
        }
        let done = DispatchGroup()
        func start(_ item: Int) {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    try batcher.submit(item, run: run)
                    outcomes.withLock { $0[item] = "written" }
                } catch {
                    outcomes.withLock { $0[item] = "\(error)" }
                }
            }.start()
        }
        start(100)
        firstBatchStarted.wait()
        for item in 1...10 { start(item) }
        // Every follower is queued before the first batch ends (nothing else takes them).
        let deadline = Date().addingTimeInterval(30)
        while batcher.queuedCount < 10 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(batcher.queuedCount, 10)
        releaseFirstBatch.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)

        let ran = batches.withLock { $0 }
        XCTAssertEqual(ran.first, [100])
        XCTAssertEqual(ran.dropFirst().map(\.count), [4, 4, 2], "queued items in batches of the bound")
        XCTAssertEqual(ran.flatMap { $0 }.sorted(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100], "each item once")
        var expected: [Int: String] = [100: "written"]
        for item in 1...10 { expected[item] = item % 3 == 0 ? "refused \(item)" : "written" }
        XCTAssertEqual(outcomes.withLock { $0 }, expected)
    }

    /// Many threads at once: every item runs once and every caller returns.
    func testManyCallersEachItemOnce() throws {
        let batcher = WriteBatcher<Int>(maximumBatch: 16)
        let seen = Locked<[Int]>([])
        let done = DispatchGroup()
        for thread in 0..<8 {
            done.enter()
            Thread {
                defer { done.leave() }
                for n in 0..<500 {
                    try? batcher.submit(thread * 1000 + n) { batch in
                        seen.withLock { $0.append(contentsOf: batch) }
                        return batch.map { _ in nil }
                    }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        let expected = (0..<8).flatMap { thread in (0..<500).map { thread * 1000 + $0 } }
        XCTAssertEqual(seen.withLock { $0 }.sorted(), expected)
    }
}
