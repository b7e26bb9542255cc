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
        try database.withStatement(insertSQL) {
            try $0.bind(user.id, at: 1)
            try $0.bind(user.name, at: 2)
            try $0.bind(user.passwordHash, at: 3)
            try $0.bind(now, at: 4)
            try $0.run()
        }
    }

    static func all(in database: some SQLConnection) throws -> [CospaceUser] {
        try database.withStatement(allSQL) { row in
            var users: [CospaceUser] = []
            while try row.step() { users.append(user(row)) }
            return users
        }
    }

    static func user(named name: String, in database: some SQLConnection) throws -> CospaceUser? {
        try database.withStatement(byNameSQL) { row in
            try row.bind(name, at: 1)
            return try row.step() ? user(row) : nil
        }
    }

    static func user(id: String, in database: some SQLConnection) throws -> CospaceUser? {
        try database.withStatement(byIDSQL) { row in
            try row.bind(id, at: 1)
            return try row.step() ? user(row) : nil
        }
    }

    /// False when there is no user of that name.
    static func setPasswordHash(name: String, passwordHash: String, in database: some SQLConnection) throws -> Bool {
        try database.withStatement(setPasswordSQL) {
            try $0.bind(name, at: 1)
            try $0.bind(passwordHash, at: 2)
            try $0.run()
        }
        return database.changes > 0
    }

    /// Deletes the user; its `user_devices` rows cascade.
    static func delete(id: String, in database: some SQLConnection) throws {
        try database.withStatement(deleteSQL) {
            try $0.bind(id, at: 1)
            try $0.run()
        }
    }

    private static func user(_ row: some SQLRow) -> CospaceUser {
        CospaceUser(id: row.string(0) ?? "", name: row.string(1) ?? "", passwordHash: row.string(2) ?? "")
    }
}
