import Logging
import PushCore

/// serve's services, started one after another and stopped in the reverse order: a service
/// may use those started before it, never those after. A start that fails stops the ones
/// already started (through `stopAll`, which serve defers as soon as the list exists).
final class ServiceList {
    private var started: [any Service] = []
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    /// Starts `service` and returns it, so that a service can be made, started and kept in
    /// one line.
    @discardableResult
    func start<S: Service>(_ service: S) throws -> S {
        do {
            try service.start()
        } catch {
            logger.error("\(service.serviceName) did not start: \(error)")
            throw error
        }
        started.append(service)
        logger.debug("started \(service.serviceName)")
        return service
    }

    /// Stops every started service, the last started first.
    func stopAll() {
        while let service = started.popLast() {
            service.stop()
            logger.debug("stopped \(service.serviceName)")
        }
    }

    /// What runs now, in the order it started.
    var names: [String] { started.map(\.serviceName) }
}
