import PushCore

/// Records the database's size in the store once an hour, on housekeeping's timer (on every
/// node, whether it runs housekeeping or not), so that /status and `pushgate doctor` can say
/// how much it grew over the last day: anyone can write to the client-side APIs, and an
/// operator should see the growth before the disk fills.
///
/// The samples are the store's (`database_sizes`), one an hour for all nodes together, kept
/// across restarts; this remembers only the hour this process last recorded, so that the size
/// is measured and written once an hour and not on every tick.
final class DatabaseSizeSampler: Sendable {
    private let store: any OperationsStatusStore
    /// The sample time (the start of the hour) this process last recorded; nil before its first.
    private let recordedHour = Locked<Int64?>(nil)

    init(store: any OperationsStatusStore) {
        self.store = store
    }

    /// Measures and records the size when `now`'s hour has no sample of this process yet. A
    /// failure leaves the hour unrecorded: the next tick tries again.
    func sampleIfDue(now: Int64) throws {
        let hour = DatabaseSize.sampleTime(now)
        guard recordedHour.withLock({ $0 != hour }) else { return }
        try store.recordDatabaseSize(bytes: try store.databaseBytes(), now: now)
        recordedHour.withLock { $0 = hour }
    }
}
