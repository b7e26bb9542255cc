/// `pushgate export` and `pushgate import` over a store of either engine: the whole store as
/// JSON lines (see `TransferTable` for what a line holds), and back into an empty store.
public protocol StoreTransfer: Sendable {
    /// Writes every line of an export to `write` (each without its line break), from one
    /// consistent snapshot, holding one page of rows in memory at a time.
    func exportStore(_ write: (String) throws -> Void) throws -> TransferSummary

    /// Reads an export into this store, which must be empty and migrated to the export's
    /// schema version, in one transaction: on any error the store is left empty. `nextLine`
    /// returns the input's next line without its break, nil at the end; `progress` is called
    /// every `progressInterval` lines.
    func importStore(
        nextLine: () throws -> Substring?, progressInterval: Int, progress: (TransferProgress) -> Void
    ) throws -> TransferSummary
}

extension SQLiteStore: StoreTransfer {}
extension PostgreSQLStore: StoreTransfer {}
