import Logging
import PushCore
import XCTest
@testable import PushDelivery

final class PruningDelivererTests: XCTestCase {
    private struct Scripted: Deliverer {
        let results: [DeliveryResult]
        func deliver(_ batch: [PushCore.Notification]) -> [DeliveryResult] { Array(results.prefix(batch.count)) }
    }

    private final class RecordingPruner: DevicePruning, @unchecked Sendable {
        // Only touched from the test's thread.
        var calls: [(Int64, Int64?)] = []
        var failing = false
        func pruneDevice(id: Int64, deadSince: Int64?) throws -> Bool {
            if failing { throw CocoaError(.fileWriteUnknown) }
            calls.append((id, deadSince))
            return true
        }
    }

    private func push(_ deviceID: Int64?) -> PushCore.Notification {
        PushCore.Notification(appID: AppID("com.example")!, token: DeviceToken(bytes: [1, 2, 3]), deviceID: deviceID)
    }

    func testPrunesOnlyDeadTokensOfStoredDevicesAndKeepsTheResults() {
        let results: [DeliveryResult] = [
            .delivered(id: "a"), .deadToken(reason: "Unregistered", since: 1_700_000_000_000),
            .deadToken(reason: "BadDeviceToken", since: nil), .rejected(status: 400, reason: "BadTopic"),
            .retryLater(reason: "503", afterSeconds: 5),
        ]
        let pruner = RecordingPruner()
        let deliverer = PruningDeliverer(Scripted(results: results), devices: pruner, logger: Logger(label: "test"))
        let answered = deliverer.deliver([push(1), push(2), push(nil), push(4), push(5)])
        XCTAssertEqual(answered, results)
        XCTAssertEqual(pruner.calls.map(\.0), [2], "only the dead token of a stored device")
        XCTAssertEqual(pruner.calls.first?.1, 1_700_000_000_000, "APNs' timestamp is passed on")
    }

    func testAFailedPruneLeavesTheResultAlone() {
        let pruner = RecordingPruner()
        pruner.failing = true
        let deliverer = PruningDeliverer(
            Scripted(results: [.deadToken(reason: "Unregistered", since: nil)]), devices: pruner, logger: Logger(label: "test"))
        XCTAssertEqual(deliverer.deliver([push(9)]), [.deadToken(reason: "Unregistered", since: nil)])
    }
}
