import Foundation

extension SQLStore {
    /// Reads an export (`nextLine` gives its lines without line breaks, nil at the end) into
    /// this store, which must be empty and migrated to the export's schema version, in ONE write
    /// transaction: a malformed line, a row the database refuses or a file cut short throws,
    /// and the store is left empty as it was. Row ids are new; what refers to a device or an
    /// outbox payload is mapped to the id the row got here. `progress` is called every
    /// `progressInterval` lines.
    public func importStore(
        nextLine: () throws -> Substring?, progressInterval: Int, progress: (TransferProgress) -> Void
    ) throws -> TransferSummary {
        var attempts = 0
        return try write { connection in
            // A write may be run again after a serialization failure (PostgreSQL) or by a group
            // commit; the input is consumed by then, so a second run must not pretend.
            attempts += 1
            guard attempts == 1 else { throw TransferError.concurrentWriter }
            try Self.allowSlowPeer(connection)
            for table in TransferTable.all {
                let hasRows = try connection.withStatement("SELECT 1 FROM \(table.name) LIMIT 1") { try $0.step() }
                if hasRows { throw TransferError.targetNotEmpty(table: table.name) }
            }
            let schemaVersion = try connection.withStatement(TransferHeader.schemaVersionSQL) { row in
                try row.step() ? Int(row.int64(0)) : 0
            }
            var reader = TransferReader(schemaVersion: schemaVersion)
            return try reader.read(into: connection, nextLine: nextLine, progressInterval: progressInterval, progress: progress)
        }
    }
}
