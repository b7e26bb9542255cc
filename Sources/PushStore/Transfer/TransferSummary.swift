/// What an export wrote or an import read: rows per line type, in the export's order.
public struct TransferSummary: Sendable, Equatable, CustomStringConvertible {
    /// Rows by line type (`device`, `outbox_row`, …), every type of the format, zeros too.
    public internal(set) var counts: [String: Int] = [:]
    /// The schema version of the store (its newest migration).
    public internal(set) var schemaVersion = 0

    /// Every row, whatever its type.
    public var rows: Int { counts.values.reduce(0, +) }

    /// `3 apps, 100000 devices, …`, the non-zero counts in the export's order.
    public var description: String {
        let parts = TransferTable.all.compactMap { table -> String? in
            guard let count = counts[table.type], count > 0 else { return nil }
            return "\(count) \(table.name)"
        }
        return parts.isEmpty ? "nothing (an empty store)" : parts.joined(separator: ", ")
    }
}

/// How far an import has come, for a progress line.
public struct TransferProgress: Sendable {
    /// Lines read so far, the first (the header) included.
    public var lines: Int
    /// Rows written so far.
    public var rows: Int
}
