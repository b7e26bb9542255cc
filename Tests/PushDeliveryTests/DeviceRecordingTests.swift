import Logging
import PushCore
import XCTest

@testable import PushDelivery

/// What the APNs client writes back to stored devices (a dialect's sends: `DeliveryPipelineTests`).
final class DeviceRecordingTests: XCTestCase {
    private final class Records: DeviceDeliveryRecord, @unchecked Sendable {
        private let lock = NSLock()
        private var _sandboxes: [(Int64, Bool)] = []
        var sandboxes: [(Int64, Bool)] { lock.withLock { _sandboxes } }
        func recordOutcomes(_ outcomes: [(deviceID: Int64, summary: String)], now: Int64) throws {}
        func setSandbox(_ sandbox: Bool, deviceID: Int64) throws {
            lock.withLock { _sandboxes.append((deviceID, sandbox)) }
        }
    }

    private func push(_ deviceID: Int64?) -> PushCore.Notification {
        PushCore.Notification(appID: AppID("com.example")!, token: DeviceToken(bytes: [1, 2, 3]), deviceID: deviceID)
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
