import Foundation

/// How many bytes the database takes, as each engine measures it.
enum DatabaseSizeQuery {
    private static let sql = EngineSQL(
        // The main file's path: its size and its WAL's are read from the file system (the WAL
        // holds what a checkpoint has not copied back yet: disk used as well).
        sqlite: "SELECT file FROM pragma_database_list WHERE name = 'main'",
        postgresql: "SELECT pg_database_size(current_database())")

    static func bytes<Connection: SQLConnection>(in database: Connection) throws -> Int64 {
        switch Connection.engine {
        case .postgresql:
            return try database.withStatement(sql) { row in try row.step() ? row.int64(0) : 0 }
        case .sqlite:
            let path = try database.withStatement(sql) { row in try row.step() ? row.string(0) : nil }
            guard let path, !path.isEmpty else { return 0 }
            return fileSize(path) + fileSize(path + "-wal")
        }
    }

    private static func fileSize(_ path: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
