import PushCore

/// The SQL of `users`: cospace users and their password hashes.
enum UserTable {
    private static let insertSQL = "INSERT INTO users (id, name, password_hash, created_at) VALUES (?1, ?2, ?3, ?4)"
    private static let allSQL = "SELECT id, name, password_hash FROM users ORDER BY name"
    private static let byNameSQL = "SELECT id, name, password_hash FROM users WHERE name = ?1"
    private static let byIDSQL = "SELECT id, name, password_hash FROM users WHERE id = ?1"
    private static let setPasswordSQL = "UPDATE users SET password_hash = ?2 WHERE name = ?1"
    private static let deleteSQL = "DELETE FROM users WHERE id = ?1"

    static func insert(_ user: CospaceUser, now: Int64, in database: some SQLConnection) throws {
        try database.run(insertSQL, binding: user.id, user.name, user.passwordHash, now)
    }

    static func all(in database: some SQLConnection) throws -> [CospaceUser] {
        try database.rows(allSQL) { row in user(row) }
    }

    static func user(named name: String, in database: some SQLConnection) throws -> CospaceUser? {
        try database.firstRow(byNameSQL, binding: name) { row in user(row) }
    }

    static func user(id: String, in database: some SQLConnection) throws -> CospaceUser? {
        try database.firstRow(byIDSQL, binding: id) { row in user(row) }
    }

    /// False when there is no user of that name.
    static func setPasswordHash(name: String, passwordHash: String, in database: some SQLConnection) throws -> Bool {
        try database.run(setPasswordSQL, binding: name, passwordHash) > 0
    }

    /// Deletes the user; its `user_devices` rows cascade.
    static func delete(id: String, in database: some SQLConnection) throws {
        try database.run(deleteSQL, binding: id)
    }

    private static func user(_ row: some SQLRow) -> CospaceUser {
        CospaceUser(id: row.string(0) ?? "", name: row.string(1) ?? "", passwordHash: row.string(2) ?? "")
    }
}
