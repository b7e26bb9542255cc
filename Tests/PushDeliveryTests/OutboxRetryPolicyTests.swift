import PushCore
import XCTest

@testable import PushDelivery

/// Backoff ceilings, full jitter, Retry-After as a floor, and the attempt limit.
final class OutboxRetryPolicyTests: XCTestCase {
    private let now: Int64 = 1_800_000_000_000

    /// A policy whose "random" pick is the given fraction of the range.
    private func policy(fraction: Double, maxAttempts: Int = 10) -> RetryPolicy {
        RetryPolicy(
            baseMilliseconds: 1_000, capMilliseconds: 900_000, maxAttempts: maxAttempts,
            random: { range in range.lowerBound + Int64(Double(range.upperBound - range.lowerBound) * fraction) })
    }

    func testCeilingsDoubleFromTheBaseUpToTheCap() {
        let policy = policy(fraction: 1)
        let table: [(attempt: Int, ceiling: Int64)] = [
            (1, 1_000), (2, 2_000), (3, 4_000), (4, 8_000), (5, 16_000), (8, 128_000), (10, 512_000), (11, 900_000),
            (40, 900_000), (200, 900_000), (0, 1_000),
        ]
        for row in table {
            XCTAssertEqual(policy.backoffCeiling(afterAttempt: row.attempt), row.ceiling, "attempt \(row.attempt)")
        }
    }

    func testFullJitterPicksWithinZeroAndTheCeiling() {
        let table: [(fraction: Double, attempts: Int, delay: Int64)] = [
            (1, 1, 1_000), (0, 1, 0), (0.5, 1, 500), (0.5, 3, 2_000), (0.25, 9, 64_000), (1, 9, 256_000),
        ]
        for row in table {
            XCTAssertEqual(
                policy(fraction: row.fraction).decide(attempts: row.attempts, retryAfterSeconds: nil, now: now),
                .retry(at: now + row.delay), "fraction \(row.fraction), attempts \(row.attempts)")
        }
    }

    func testARandomSourceOutOfRangeIsClamped() {
        let wild = RetryPolicy(random: { _ in -5 })
        XCTAssertEqual(wild.decide(attempts: 1, retryAfterSeconds: nil, now: now), .retry(at: now))
        let wilder = RetryPolicy(random: { _ in .max })
        XCTAssertEqual(wilder.decide(attempts: 1, retryAfterSeconds: nil, now: now), .retry(at: now + 1_000))
    }

    func testRetryAfterIsAFloorNotACeiling() {
        let table: [(fraction: Double, attempts: Int, retryAfter: Int, delay: Int64)] = [
            (0, 1, 30, 30_000),  // the upstream's wait beats a short jitter
            (1, 10 - 1, 1, 256_000),  // a long backoff beats a short Retry-After
            (0, 1, 0, 0),
            (0, 1, 3_600, 3_600_000),  // beyond the cap: the upstream knows best
            (0, 1, 10 * 86_400, 86_400_000),  // but not beyond a day
            (0, 1, Int.max, 86_400_000),  // nor overflow
            (0, 1, -4, 0),
        ]
        for row in table {
            XCTAssertEqual(
                policy(fraction: row.fraction).decide(
                    attempts: row.attempts, retryAfterSeconds: row.retryAfter, now: now),
                .retry(at: now + row.delay), "Retry-After \(row.retryAfter)")
        }
    }

    func testGivesUpAfterTheLastAttempt() {
        let policy = policy(fraction: 1, maxAttempts: 3)
        XCTAssertEqual(policy.decide(attempts: 1, retryAfterSeconds: nil, now: now), .retry(at: now + 1_000))
        XCTAssertEqual(policy.decide(attempts: 2, retryAfterSeconds: nil, now: now), .retry(at: now + 2_000))
        XCTAssertEqual(policy.decide(attempts: 3, retryAfterSeconds: 1, now: now), .giveUp)
        XCTAssertEqual(policy.decide(attempts: 4, retryAfterSeconds: nil, now: now), .giveUp)
    }

    func testTheDefaultRandomSourceStaysInRange() {
        let policy = RetryPolicy()
        for attempts in 1...9 {
            for _ in 0..<50 {
                guard case .retry(let at) = policy.decide(attempts: attempts, retryAfterSeconds: nil, now: now) else {
                    return XCTFail("gave up at \(attempts)")
                }
                XCTAssert((now...now + policy.backoffCeiling(afterAttempt: attempts)).contains(at))
            }
        }
    }

    /// Each `DeliveryResult` becomes one outbox outcome (STYLE 6).
    func testDeliveryResultsMapToOutboxOutcomes() {
        let policy = policy(fraction: 1, maxAttempts: 3)
        let table: [(result: DeliveryResult, attempts: Int, outcome: OutboxOutcome)] = [
            (.delivered(id: "abc"), 1, .delivered(id: "abc")),
            (.deadToken(reason: "Unregistered", since: 42), 1, .deadToken(reason: "Unregistered", since: 42)),
            (.deadToken(reason: "BadDeviceToken", since: nil), 2, .deadToken(reason: "BadDeviceToken", since: nil)),
            (.rejected(status: 400, reason: "BadTopic"), 1, .dead(error: "rejected (400): BadTopic")),
            (.retryLater(reason: "503", afterSeconds: nil), 1, .retry(at: now + 1_000, error: "503")),
            (
                .retryLater(reason: "429", afterSeconds: 60), 2,
                .retry(at: now + 60_000, error: "429 (Retry-After 60 s)")
            ),
            (.retryLater(reason: "503", afterSeconds: nil), 3, .dead(error: "gave up after 3 attempts: 503")),
        ]
        for row in table {
            XCTAssertEqual(OutboxOutcome(row.result, attempts: row.attempts, policy: policy, now: now), row.outcome)
        }
    }
}
