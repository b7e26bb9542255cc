/// The schema migrations built into the binary, from the repository's top-level `sql/`:
/// `sql/sqlite/NNNN_name.sql` and their PostgreSQL twins in `sql/postgresql/` (same numbers
/// and meaning). Each is its file's name and bytes, in file-name order; Plugins/EmbeddedMigrations
/// writes them from the folders at build time, so an installed or copied `pushgate` needs no
/// folder of migrations beside it and a new migration needs only its file.
public enum BuiltInMigrationFiles {
    public static var sqlite: [(fileName: String, bytes: [UInt8])] { EmbeddedSQL.sqlite }
    public static var postgresql: [(fileName: String, bytes: [UInt8])] { EmbeddedSQL.postgresql }
}
