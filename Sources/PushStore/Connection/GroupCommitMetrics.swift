import CoreMetrics

/// What `/metrics` shows of SQLite's group-commit writer, and on PostgreSQL of the Token
/// Reporter's report batches: how many writes each batch carried (`pushgate_writer_batch_size`)
/// and how long a batch's oldest write waited for it to start (`pushgate_writer_wait_seconds`).
/// Recorded once per batch, not per write.
public struct GroupCommitMetrics: Sendable {
    public static let batchSizeLabel = "pushgate_writer_batch_size"
    public static let waitLabel = "pushgate_writer_wait_seconds"

    private let batchSize: Recorder
    private let wait: Timer

    public init(factory: any MetricsFactory) {
        batchSize = Recorder(label: Self.batchSizeLabel, factory: factory)
        wait = Timer(label: Self.waitLabel, factory: factory)
    }

    /// Records nothing.
    public static var off: GroupCommitMetrics { GroupCommitMetrics(factory: NOOPMetricsHandler.instance) }

    func recordBatch(size: Int, waitedNanoseconds: UInt64) {
        batchSize.record(size)
        wait.recordNanoseconds(Int64(clamping: waitedNanoseconds))
    }
}
