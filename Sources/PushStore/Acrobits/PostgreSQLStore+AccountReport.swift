import PushCore

extension PostgreSQLStore {
    /// Most reports a node writes in one call (`pushgate_save_account_reports`).
    ///
    /// Why a bound: a batch holds every advisory lock of its accounts until it commits, and
    /// its reports wait for the whole of it. 64 reports are one call of a few milliseconds.
    static let maximumReportBatch = 64

    /// From now on, `/metrics`' writer histograms (`pushgate_writer_batch_size`,
    /// `pushgate_writer_wait_seconds`) record this node's report batches.
    public func recordReportBatches(in metrics: GroupCommitMetrics) {
        reportBatcher.record(in: metrics)
    }

    /// A Token Reporter report on PostgreSQL, written together with the reports this node's
    /// other threads make at the same moment: `saveAccountTokens`' statements, run by the
    /// schema's functions (migrations 0005, 0008 and 0014), one round trip and one commit per
    /// batch, a few statements for the whole batch.
    ///
    /// One batch at a time per node: on the 2-core bench host two or four at once gave the
    /// same throughput within the host's noise, as smaller batches that cost the server more
    /// CPU per report and could deadlock on devices two of them share (see migration 0008).
    ///
    /// READ COMMITTED, not the SERIALIZABLE of every other write: under concurrent reports of
    /// new accounts, serializable snapshots rolled back about one report in two (their index
    /// look-ups of rows not there yet lock whole pages), and each ran again. The functions
    /// take the locks they rely on instead: an advisory lock on the selector (two reports of
    /// one account run one after the other) and `FOR UPDATE` on a device before deleting it
    /// as ownerless (a link another transaction is adding then either waits or is seen). A
    /// device inserted or deleted by another transaction meanwhile is a unique or foreign key
    /// violation, and the report runs again.
    ///
    /// The account's links are read here only for the new-device gate: the schema's functions
    /// decide the rest on the server, in the report's one round trip.
    func writeReport(_ report: AccountReport, admittingNewDevices: (() throws -> Void)?) throws {
        if let admittingNewDevices,
            try withDatabase({ try AcrobitsLinkQuery.standing(of: report, in: $0) }) == .changesDevices
        {
            try admittingNewDevices()
        }
        try reportBatcher.submit(report) { batch in saveReports(batch) }
    }

    /// One outcome per report. A batch that fails as a whole (one report's race or fault, a
    /// deadlock with another node's batch) left nothing behind; each report then runs alone,
    /// run again after a race, so that only its own error reaches its request. A lone report
    /// is one call of the per-report function. A database that is away fails them all.
    func saveReports(_ batch: [AccountReport]) -> [(any Error)?] {
        if batch.count > 1 {
            do {
                try pool.withConnection { connection in try AcrobitsAccountTable.saveTogether(batch, in: connection) }
                return batch.map { _ in nil }
            } catch let unavailable as StoreUnavailable {
                return batch.map { _ in unavailable }
            } catch {
                // Below, one by one.
            }
        }
        return batch.map { report in
            do {
                try pool.withConnection { connection in
                    try connection.lockingWriteStatement {
                        try AcrobitsAccountTable.saveInOneCall(
                            selector: report.selector, username: report.username, tokens: report.tokens,
                            now: report.now, in: connection)
                    }
                }
                return nil
            } catch {
                return error
            }
        }
    }
}
