/// The first line of an export: what it is, its format, and the schema it was written from.
enum TransferHeader {
    static let type = "pushgate-export"
    /// The format of the lines; a reader refuses another.
    static let format: Int64 = 1
    /// The last line, counting the rows, so that a file cut short is told from a whole one.
    static let endType = "end"
    /// The store's schema version: its newest migration.
    static let schemaVersionSQL = "SELECT max(version) FROM schema_migrations"
}
