import Dispatch
import Logging
import PushStore

/// Runs the WAL checkpoints of `serve` on its own thread. The responder's connections have
/// automatic checkpoints off: otherwise the request whose commit crosses SQLite's threshold
/// copies the WAL back and syncs the database file before it can answer (measured as the
/// Token Reporter's p99).
///
/// Each run begins with a pass on the checkpointer's own connection, which copies what the
/// WAL holds while writes go on. When the WAL has grown past `restartFrames`, a last pass on
/// the writer's connection, between two batches, copies the frames appended since: only then
/// may the next commit start the WAL over (see `GroupCommitWriter.checkpoint`). Without it
/// the WAL grows for as long as writes keep coming. Writes wait for that last pass, so a
/// second pass of the checkpointer's own comes before it: the first syncs and copies what
/// the interval appended, the second what arrived meanwhile, and the writer's pass (measured
/// 4–10 ms when it followed the first directly) is left a few dozen frames.
///
/// Why every 60 ms: each pass ends in an fsync of the WAL and one of the database, and what
/// they write back is what the interval left dirty. Under the Token Reporter benchmark
/// (~6 KB of WAL per request) runs every 250 ms / 1000 pages gave a p99 of 10.6–12.5 ms,
/// every 60 ms / 250 pages 9.0–11.5 ms in the same alternating runs; every second, 20–28 ms.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: `store` is used only on `queue`; `timer` is set up in init and cancelled once.
    private let store: SQLiteStore
    private let writer: GroupCommitWriter
    private let restartFrames: Int
    private let queue = DispatchQueue(label: "pushgate.wal-checkpoint")
    private let timer: DispatchSourceTimer
    private let logger: Logger

    /// - Parameter restartFrames: the WAL length (in pages) past which the writer's pass
    ///   runs (1 MB of 4 KiB pages; SQLite's own automatic checkpoint waits for 1000). Under
    ///   load every run passes it; a quiet server restarts the WAL less often.
    init(
        store: SQLiteStore, writer: GroupCommitWriter, intervalMilliseconds: Int = 60, restartFrames: Int = 250,
        logger: Logger
    ) {
        self.store = store
        self.writer = writer
        self.restartFrames = restartFrames
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
            let wal = try store.checkpoint()
            if wal.walFrames >= restartFrames {
                try store.checkpoint()
                try writer.checkpoint()
            }
        } catch {
            // The WAL only grows meanwhile; the next run tries again.
            logger.warning("WAL checkpoint failed: \(error)")
        }
    }
}
