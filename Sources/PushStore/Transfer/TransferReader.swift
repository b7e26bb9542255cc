import Foundation

/// Reads an export's lines one at a time and inserts each row, keeping only the maps from
/// the export's device and payload ids to the target's (a few bytes per device).
struct TransferReader {
    let schemaVersion: Int
    private var lineNumber = 0
    private var summary = TransferSummary()
    private var ids: [TransferTable.IDSpace: [Int64: Int64]] = [:]

    init(schemaVersion: Int) {
        self.schemaVersion = schemaVersion
    }

    mutating func read<Connection: SQLConnection>(
        into connection: Connection, nextLine: () throws -> Substring?, progressInterval: Int,
        progress: (TransferProgress) -> Void
    ) throws -> TransferSummary {
        guard let first = try next(nextLine) else {
            throw TransferError.malformed(line: 1, "the input is empty, not a pushgate export")
        }
        try checkHeader(first)
        summary.schemaVersion = schemaVersion
        while let line = try next(nextLine) {
            if line.type == TransferHeader.endType {
                try checkEnd(line)
                // Nothing may follow: lines after the end are a concatenation or damage.
                if try next(nextLine) != nil {
                    throw TransferError.malformed(line: lineNumber, "a line after the export's closing line")
                }
                return summary
            }
            guard let table = TransferTable.byType[line.type] else {
                throw TransferError.malformed(line: lineNumber, "unknown type \"\(line.type)\"")
            }
            try insert(line, into: table, on: connection)
            summary.counts[table.type, default: 0] += 1
            if lineNumber % progressInterval == 0 {
                progress(TransferProgress(lines: lineNumber, rows: summary.rows))
            }
        }
        throw TransferError.truncated(lines: lineNumber)
    }

    /// The next line parsed, skipping nothing: an empty line is malformed too.
    private mutating func next(_ nextLine: () throws -> Substring?) throws -> TransferLine? {
        guard let text = try nextLine() else { return nil }
        lineNumber += 1
        do {
            return try TransferLine(json: text)
        } catch {
            throw error.at(line: lineNumber)
        }
    }

    private func checkHeader(_ line: TransferLine) throws {
        guard line.type == TransferHeader.type else {
            throw TransferError.malformed(
                line: 1, "the first line is a \"\(line.type)\", not a pushgate export's header (\"\(TransferHeader.type)\")")
        }
        guard case .integer(let format)? = line["format"], format == TransferHeader.format else {
            throw TransferError.malformed(line: 1, "export format \(line["format"].map { "\($0)" } ?? "missing"), this pushgate reads format \(TransferHeader.format)")
        }
        guard case .integer(let schema)? = line["schema"] else {
            throw TransferError.malformed(line: 1, "the header names no schema version")
        }
        guard schema == Int64(schemaVersion) else {
            throw TransferError.malformed(
                line: 1,
                "the export is of schema version \(schema), this pushgate's is \(schemaVersion): export and import "
                    + "with the same pushgate version (run the newer one's `pushgate migrate` on the source first)")
        }
    }

    private func checkEnd(_ line: TransferLine) throws {
        guard case .integer(let rows)? = line["rows"], rows == Int64(summary.rows) else {
            throw TransferError.malformed(
                line: lineNumber, "the closing line counts \(line["rows"].map { "\($0)" } ?? "no") rows, the export held \(summary.rows)")
        }
    }

    /// One row: its fields checked against the table's columns, references mapped, and the
    /// target's new id remembered for a row others refer to.
    private mutating func insert<Connection: SQLConnection>(
        _ line: TransferLine, into table: TransferTable, on connection: Connection
    ) throws {
        let expected = Set(table.columns.map(\.name))
        if let unknown = line.fields.first(where: { !expected.contains($0.name) }) {
            throw TransferError.malformed(line: lineNumber, "a \(table.type) has no field \"\(unknown.name)\"")
        }
        var values: [TransferValue] = []
        var exportedID: (TransferTable.IDSpace, Int64)?
        for column in table.columns {
            guard let value = line[column.name] else {
                throw TransferError.malformed(line: lineNumber, "the \(table.type) lacks \"\(column.name)\"")
            }
            switch column.kind {
            case .rowID(let space?):
                guard case .integer(let id) = value else {
                    throw TransferError.malformed(line: lineNumber, "\"\(column.name)\" must be an integer")
                }
                if ids[space]?[id] != nil {
                    throw TransferError.malformed(line: lineNumber, "a second \(space.rawValue) with id \(id)")
                }
                exportedID = (space, id)
            case .rowID(nil):
                continue
            case .reference(let space):
                guard case .integer(let id) = value else {
                    throw TransferError.malformed(line: lineNumber, "\"\(column.name)\" must be an integer")
                }
                guard let mapped = ids[space]?[id] else {
                    throw TransferError.malformed(
                        line: lineNumber, "\"\(column.name)\" \(id) names no \(space.rawValue) of an earlier line")
                }
                values.append(.integer(mapped))
            case .text, .integer, .blob:
                values.append(value)
            }
        }

        let inserted = table.insertedColumns
        let sql =
            "INSERT INTO \(table.name) (\(inserted.map(\.name).joined(separator: ", "))) VALUES ("
            + inserted.map { _ in "?" }.joined(separator: ", ") + ")"
            + (exportedID == nil ? "" : " RETURNING id")
        let lineNumber = self.lineNumber
        let newID: Int64? = try connection.withStatement(sql) { row in
            for (index, column) in inserted.enumerated() {
                do {
                    try column.bind(values[index], to: row, at: Int32(index + 1))
                } catch let error as TransferError {
                    throw error.at(line: lineNumber)
                }
            }
            do {
                if exportedID == nil {
                    try row.run()
                    return nil
                }
                guard try row.step() else { throw TransferError.refused(line: lineNumber, "no id returned") }
                return row.int64(0)
            } catch let error as TransferError {
                throw error
            } catch {
                throw TransferError.refused(line: lineNumber, "\(error)")
            }
        }
        if let (space, id) = exportedID, let newID {
            ids[space, default: [:]][id] = newID
        }
    }
}
