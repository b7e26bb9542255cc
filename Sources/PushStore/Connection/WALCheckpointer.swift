import PushCore
import Dispatch

/// Runs the WAL checkpoints of a process whose connections have automatic checkpoints off
/// (`pushgate serve`), on a thread of its own. Otherwise the request whose commit crosses
/// SQLite's threshold copies the WAL back and syncs the database file before it can answer
/// (measured as the Token Reporter's p99).
///
/// Each run begins with a pass on the checkpointer's own connection, which copies what the
/// WAL holds while writes go on. Such a pass never copies the frames appended while it ran,
/// and SQLite starts the WAL over only when every frame is copied: so when the WAL has grown
/// past `restartFrames`, a last pass runs on the writer's connection, between two batches
/// (see `GroupCommitWriter.checkpoint`). Writes wait for that pass, so it is prepared to
/// leave it as little as can be: a second pass of the checkpointer's own copies what arrived
/// during the first, then both files are flushed to disk (`SQLiteStore.flushToDisk`). The
/// writer's pass still syncs the WAL and then the database file: that is what SQLite needs
/// before the WAL may start over.
///
/// Why these numbers, from the Token Reporter benchmark (docs/performance.md; what was tried
/// is in the CHANGELOG):
/// - Every 60 ms: each pass copies what the interval left; passes once a second made bursts
///   of write-back that showed in the p99.
/// - The writer's pass once the WAL holds 16,384 pages (64 MiB of 4 KiB pages): every write
///   waits for it, so under load it should come seldom, about once a second. A small
///   threshold made it come every run, with a worse p99. Only a steady load fills the WAL
///   that far: when the writes pause long enough for a pass to copy the last frame, that
///   pass syncs the database itself and the next commit starts the WAL over.
final class WALCheckpointer: @unchecked Sendable {
    // @unchecked: `store` is used only on `queue`; `timer` is set up in init and cancelled once.
    private let store: SQLiteStore
    private let writer: GroupCommitWriter
    private let restartFrames: Int
    private let queue = DispatchQueue(label: "pushgate.wal-checkpoint")
    private let timer: DispatchSourceTimer
    private let failed: @Sendable (any Error) -> Void

    public static let defaultIntervalMilliseconds = 60
    public static let defaultRestartFrames = 16_384

    /// - Parameters:
    ///   - store: a connection of the checkpointer's own, on the writer's database.
    ///   - restartFrames: the WAL length (in pages) past which the writer's pass runs.
    ///   - failed: told each failed run; the WAL only grows until a later run succeeds.
    public init(
        store: SQLiteStore, writer: GroupCommitWriter, intervalMilliseconds: Int = defaultIntervalMilliseconds,
        restartFrames: Int = defaultRestartFrames, failed: @escaping @Sendable (any Error) -> Void
    ) {
        self.store = store
        self.writer = writer
        self.restartFrames = restartFrames
        self.failed = failed
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now() + .milliseconds(intervalMilliseconds), repeating: .milliseconds(intervalMilliseconds),
            leeway: .milliseconds(intervalMilliseconds / 4))
        timer.setEventHandler { [weak self] in self?.checkpoint() }
    }

    public func start() {
        timer.resume()
    }

    /// Stops the timer and checkpoints once more, so a clean stop leaves a short WAL.
    public func stop() {
        timer.cancel()
        queue.sync { checkpoint() }
    }

    private func checkpoint() {
        do {
            let wal = try store.checkpoint()
            if wal.walFrames >= restartFrames {
                try store.checkpoint()
                try store.flushToDisk()
                try writer.checkpoint()
            }
        } catch {
            failed(error)
        }
    }
}

extension WALCheckpointer: Service {
    public var serviceName: String { "WAL checkpointer" }
}
