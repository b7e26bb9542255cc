import Logging
import PushCore
import XCTest

@testable import PushDelivery

/// What direct sends and the APNs client write back to stored devices.
final class DeviceRecordingTests: XCTestCase {
    private final class Records: DeviceDeliveryRecord, @unchecked Sendable {
        private let lock = NSLock()
        private var _outcomes: [(Int64, String, Int64)] = []
        private var _sandboxes: [(Int64, Bool)] = []
        var outcomes: [(Int64, String, Int64)] { lock.withLock { _outcomes } }
        var sandboxes: [(Int64, Bool)] { lock.withLock { _sandboxes } }
        func recordOutcomes(_ outcomes: [(deviceID: Int64, summary: String)], now: Int64) throws {
            lock.withLock { _outcomes += outcomes.map { ($0.deviceID, $0.summary, now) } }
        }
        func setSandbox(_ sandbox: Bool, deviceID: Int64) throws {
            lock.withLock { _sandboxes.append((deviceID, sandbox)) }
        }
    }

    private struct NoPruning: DevicePruning {
        func pruneDevice(id: Int64, deadSince: Int64?) throws -> Bool { true }
    }

    private struct Scripted: Deliverer {
        let results: [DeliveryResult]
        func deliver(_ batch: [PushCore.Notification]) -> [DeliveryResult] { Array(results.prefix(batch.count)) }
    }

    private func push(_ deviceID: Int64?) -> PushCore.Notification {
        PushCore.Notification(appID: AppID("com.example")!, token: DeviceToken(bytes: [1, 2, 3]), deviceID: deviceID)
    }

    func testDirectSendsRecordEachStoredDevicesOutcome() {
        let records = Records()
        let deliverer = PruningDeliverer(
            Scripted(results: [
                .delivered(id: "x"), .rejected(status: 400, reason: "BadTopic"), .delivered(id: nil),
                .retryLater(reason: "ServiceUnavailable", afterSeconds: nil),
            ]), devices: NoPruning(), records: records, clock: UnixClock { 1_700_000_123 },
            logger: Logger(label: "test"))
        _ = deliverer.deliver([push(1), push(2), push(nil), push(4)])
        XCTAssertEqual(records.outcomes.map(\.0), [1, 2, 4], "a push to an unstored token records nothing")
        XCTAssertEqual(
            records.outcomes.map(\.1),
            ["delivered", "rejected (400): BadTopic", "not delivered, retrying: ServiceUnavailable"])
        XCTAssertEqual(records.outcomes.map(\.2), [1_700_000_123, 1_700_000_123, 1_700_000_123])
    }

    func testACorrectedAPNsEnvironmentIsWrittenOffTheEngineThread() {
        let records = Records()
        let events = RecordingDeliveryEvents(records: records, logger: Logger(label: "test"))
        events.apnsEnvironmentCorrected(for: push(7), sandbox: true)
        events.apnsEnvironmentCorrected(for: push(nil), sandbox: false)
        events.stop()
        XCTAssertEqual(records.sandboxes.map(\.0), [7])
        XCTAssertEqual(records.sandboxes.map(\.1), [true])
    }
}
