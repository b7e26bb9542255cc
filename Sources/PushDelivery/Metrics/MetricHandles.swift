import CoreMetrics
import Foundation

/// The metric objects of one `DeliveryMetrics`, made once per label set and kept: a push
/// then costs a dictionary lookup under an uncontended lock, not a trip to the registry
/// (whose one lock every thread shares) and a new object per count. Label sets are bounded
/// (see `DeliveryMetrics`), and so is this.
final class MetricHandles: @unchecked Sendable {
    // @unchecked: `counters` and `timers` are only touched under `lock`.
    private let factory: any MetricsFactory
    private let lock = NSLock()
    private var counters: [String: Counter] = [:]
    private var timers: [String: CoreMetrics.Timer] = [:]

    init(factory: any MetricsFactory) {
        self.factory = factory
    }

    func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
        let key = Self.key(label, dimensions)
        lock.lock()
        defer { lock.unlock() }
        if let counter = counters[key] { return counter }
        let counter = Counter(label: label, dimensions: dimensions, factory: factory)
        counters[key] = counter
        return counter
    }

    func timer(_ label: String, _ dimensions: [(String, String)]) -> CoreMetrics.Timer {
        let key = Self.key(label, dimensions)
        lock.lock()
        defer { lock.unlock() }
        if let timer = timers[key] { return timer }
        let timer = CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
        timers[key] = timer
        return timer
    }

    private static func key(_ label: String, _ dimensions: [(String, String)]) -> String {
        var key = label
        for (_, value) in dimensions {
            key.append("\u{1F}")
            key.append(value)
        }
        return key
    }
}
