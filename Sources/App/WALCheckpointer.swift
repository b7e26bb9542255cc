import Dispatch
import Logging
import PushStore

/// Runs the WAL checkpoints of `serve` on its own thread. The responder's connections have
/// automatic checkpoints off: otherwise the request whose commit crosses SQLite's threshold
/// copies the WAL back and syncs the database file before it can answer (measured as the
/// Token Reporter's p99).
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: `store` is used only on `queue`; `timer` is set up in init and cancelled once.
    private let store: SQLiteStore
    private let queue = DispatchQueue(label: "pushgate.wal-checkpoint")
    private let timer: DispatchSourceTimer
    private let logger: Logger

    init(store: SQLiteStore, intervalMilliseconds: Int = 250, logger: Logger) {
        self.store = store
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now() + .milliseconds(intervalMilliseconds), repeating: .milliseconds(intervalMilliseconds),
            leeway: .milliseconds(intervalMilliseconds / 4))
        timer.setEventHandler { [weak self] in self?.checkpoint() }
    }

    func start() {
        timer.resume()
    }

    /// Stops the timer and checkpoints once more, so a clean stop leaves a short WAL.
    func stop() {
        timer.cancel()
        queue.sync { checkpoint() }
    }

    private func checkpoint() {
        do {
            try store.checkpoint()
        } catch {
            // The WAL only grows meanwhile; the next run tries again.
            logger.warning("WAL checkpoint failed: \(error)")
        }
    }
}
