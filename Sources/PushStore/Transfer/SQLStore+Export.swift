import Foundation

extension SQLStore {
    /// Rows read per statement: an export holds one page in memory whatever the store's size.
    static var exportPageSize: Int { 500 }

    /// Writes the whole store, one JSON line at a time (without its line break), from one read
    /// snapshot: a header, every row of `TransferTable.all` in order, a closing line. Each table
    /// is read in pages along its primary key, so memory stays bounded however big the store.
    public func exportStore(_ write: (String) throws -> Void) throws -> TransferSummary {
        try read { connection in
            try Self.allowSlowPeer(connection)
            var summary = TransferSummary()
            summary.schemaVersion = try connection.withStatement(TransferHeader.schemaVersionSQL) { row in
                guard try row.step() else { return 0 }
                return Int(row.int64(0))
            }
            let header = TransferLine(
                type: TransferHeader.type,
                fields: [
                    ("format", .integer(TransferHeader.format)), ("schema", .integer(Int64(summary.schemaVersion))),
                    ("engine", .text(Connection.engine.rawValue)), ("exported_at", .integer(clock())),
                ])
            try write(header.json)
            for table in TransferTable.all {
                var count = 0
                try Self.exportRows(of: table, from: connection) { line in
                    try write(line.json)
                    count += 1
                }
                summary.counts[table.type] = count
            }
            try write(TransferLine(type: TransferHeader.endType, fields: [("rows", .integer(Int64(summary.rows)))]).json)
            return summary
        }
    }

    /// On PostgreSQL, lifts the session's idle-in-transaction limit for this transaction:
    /// an export written into a slow pipe, or an import read from one, may sit between two
    /// statements longer than a request ever does. (A CLI that dies closes its connection,
    /// which is what the limit guards against for serve.)
    static func allowSlowPeer(_ connection: Connection) throws {
        if Connection.engine == .postgresql {
            try connection.run("SET LOCAL idle_in_transaction_session_timeout = 0")
        }
    }

    /// Every row of `table`, a page at a time along its key: the first page by
    /// `ORDER BY key LIMIT n`, each next one after the last key seen (`(key) > (…)`).
    private static func exportRows(
        of table: TransferTable, from connection: Connection, _ emit: (TransferLine) throws -> Void
    ) throws {
        let columns = table.columns.map(\.name).joined(separator: ", ")
        let keyIndexes = table.key.map { key in table.columns.firstIndex { $0.name == key }! }
        let order = table.key.joined(separator: ", ")
        let firstSQL = "SELECT \(columns) FROM \(table.name) ORDER BY \(order) LIMIT \(exportPageSize)"
        let after =
            table.key.count == 1
            ? "\(order) > ?" : "(\(order)) > (\(table.key.map { _ in "?" }.joined(separator: ", ")))"
        let nextSQL = "SELECT \(columns) FROM \(table.name) WHERE \(after) ORDER BY \(order) LIMIT \(exportPageSize)"

        var lastKey: [TransferValue]?
        while true {
            let page: [TransferLine] = try connection.withStatement(lastKey == nil ? firstSQL : nextSQL) { row in
                if let lastKey {
                    for (position, value) in lastKey.enumerated() {
                        try table.columns[keyIndexes[position]].bind(value, to: row, at: Int32(position + 1))
                    }
                }
                var page: [TransferLine] = []
                while try row.step() {
                    let fields = table.columns.enumerated().map { index, column in
                        (column.name, column.value(of: row, at: Int32(index)))
                    }
                    page.append(TransferLine(type: table.type, fields: fields))
                }
                return page
            }
            // Written after the statement is done with: `emit` may take its time (a slow pipe).
            for line in page { try emit(line) }
            guard page.count == exportPageSize, let last = page.last else { return }
            lastKey = keyIndexes.map { last.fields[$0].value }
        }
    }
}
