import Foundation
import Logging
import PushCore
import XCTest
@testable import PushDelivery

/// Answers scripted results per device (then `delivered`), records every batch.
/// `@unchecked Sendable`: state is guarded by `lock`.
public final class ScriptedDeliverer: Deliverer, @unchecked Sendable {
    public init() {}
    private let lock = NSLock()
    private var scripts: [Int64: [DeliveryResult]] = [:]
    private var recorded: [[PushCore.Notification]] = []
    private var startedCount = 0
    private var droppingLast = false
    private var seconds = 0.0

    public func script(_ deviceID: Int64, _ results: [DeliveryResult]) { lock.withLock { scripts[deviceID] = results } }

    public var batches: [[PushCore.Notification]] { lock.withLock { recorded } }
    public var started: Int { lock.withLock { startedCount } }
    public var dropsLastResult: Bool {
        get { lock.withLock { droppingLast } }
        set { lock.withLock { droppingLast = newValue } }
    }
    /// How long each `deliver` takes.
    public var delay: Double {
        get { lock.withLock { seconds } }
        set { lock.withLock { seconds = newValue } }
    }

    public func sends(to deviceID: Int64) -> Int {
        batches.joined().filter { $0.deviceID == deviceID }.count
    }

    /// The most `deliver` calls seen running at once.
    public var mostConcurrent: Int { lock.withLock { peak } }
    private var running = 0
    private var peak = 0

    public func deliver(_ batch: [PushCore.Notification]) -> [DeliveryResult] {
        let delay = lock.withLock { () -> Double in
            startedCount += 1
            running += 1
            peak = max(peak, running)
            return seconds
        }
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        return lock.withLock {
            running -= 1
            recorded.append(batch)
            var results = batch.map { notification -> DeliveryResult in
                guard let id = notification.deviceID, var script = scripts[id], !script.isEmpty else {
                    return .delivered(id: nil)
                }
                let result = script.removeFirst()
                scripts[id] = script
                return result
            }
            if droppingLast { results.removeLast() }
            return results
        }
    }
}

extension ScriptedDeliverer {
    /// Answers from a thread of its own, as the curl engine answers from its threads: the
    /// caller returns once the batch is handed on.
    public func deliver(
        _ batch: [PushCore.Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void
    ) {
        let answering = Thread { [self] in
            let results = deliver(batch)
            home.resume { completion(results) }
        }
        answering.start()
    }
}
