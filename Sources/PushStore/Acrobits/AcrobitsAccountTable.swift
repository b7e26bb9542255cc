import PushCore

/// The SQL of `acrobits_accounts`: which device each (selector, channel) pushes to.
enum AcrobitsAccountTable {
    private static let upsertSQL = """
        INSERT INTO acrobits_accounts (selector, channel, username, device_id, updated_at)
        VALUES (?1, ?2, ?3, ?4, ?5)
        ON CONFLICT (selector, channel) DO UPDATE SET
            username = COALESCE(excluded.username, acrobits_accounts.username),
            device_id = excluded.device_id,
            updated_at = excluded.updated_at
        """
    // A new username on the link it already has: no index entry or foreign key to rewrite.
    private static let renameSQL = """
        UPDATE acrobits_accounts
        SET username = ?3, updated_at = ?4
        WHERE selector = ?1 AND channel = ?2
        """
    private static let deleteSQL = "DELETE FROM acrobits_accounts WHERE selector = ? RETURNING device_id"
    private static let ownersSQL = """
        SELECT device_id, selector, channel, username
        FROM acrobits_accounts
        ORDER BY device_id, selector, channel
        """

    private static let saveInOneCallSQL = """
        SELECT pushgate_save_account_tokens(?1, ?2, ?3, ?4::text[], ?5::text[], ?6::bytea[], ?7::text[])
        """

    /// PostgreSQL only: the whole of a report (`SQLStore.saveAccountTokens`) in the schema's
    /// function, one round trip.
    static func saveInOneCall(
        selector: String, username: String?, tokens: [ChannelToken], now: Int64, in database: some SQLConnection
    ) throws {
        try database.run(
            saveInOneCallSQL, binding: selector, username, now,
            PostgreSQLArrayLiteral.text(tokens.map(\.channel.rawValue)),
            PostgreSQLArrayLiteral.text(tokens.map(\.appID.rawValue)),
            PostgreSQLArrayLiteral.bytea(tokens.map(\.token.bytes)),
            PostgreSQLArrayLiteral.text(tokens.map(\.reportedToken)))
    }

    private static let saveTogetherSQL = """
        SELECT pushgate_save_account_reports(
            ?1::text[], ?2::text[], ?3::bigint[], ?4::int[], ?5::int[], ?6::text[], ?7::text[], ?8::bytea[], ?9::text[])
        """

    /// PostgreSQL only: several reports in one call and one transaction (the schema's
    /// `pushgate_save_account_reports`, migration 0008, set-based since 0014). Their channels
    /// go in one set of arrays; each report names its first channel (1-based) and how many it
    /// has.
    static func saveTogether(_ reports: [AccountReport], in database: some SQLConnection) throws {
        var firsts: [Int64] = []
        var first: Int64 = 1
        for report in reports {
            firsts.append(first)
            first += Int64(report.tokens.count)
        }
        let tokens = reports.flatMap(\.tokens)
        try database.run(
            saveTogetherSQL, binding: PostgreSQLArrayLiteral.text(reports.map(\.selector)),
            PostgreSQLArrayLiteral.text(reports.map(\.username)), PostgreSQLArrayLiteral.integers(reports.map(\.now)),
            PostgreSQLArrayLiteral.integers(firsts),
            PostgreSQLArrayLiteral.integers(reports.map { Int64($0.tokens.count) }),
            PostgreSQLArrayLiteral.text(tokens.map(\.channel.rawValue)),
            PostgreSQLArrayLiteral.text(tokens.map(\.appID.rawValue)),
            PostgreSQLArrayLiteral.bytea(tokens.map(\.token.bytes)),
            PostgreSQLArrayLiteral.text(tokens.map(\.reportedToken)))
    }

    /// Links (selector, channel) to `deviceID`, replacing what it linked to.
    static func link(
        selector: String, channel: AcrobitsChannel, username: String?, deviceID: Int64, now: Int64,
        in database: some SQLConnection
    ) throws {
        try database.run(upsertSQL, binding: selector, channel.rawValue, username, deviceID, now)
    }

    /// Gives (selector, channel) a new username, keeping the device it links to.
    static func rename(
        selector: String, channel: AcrobitsChannel, username: String, now: Int64, in database: some SQLConnection
    ) throws {
        try database.run(renameSQL, binding: selector, channel.rawValue, username, now)
    }

    /// Removes every channel of `selector`; returns the device id of each link removed.
    static func delete(selector: String, in database: some SQLConnection) throws -> [Int64] {
        try database.rows(deleteSQL, binding: selector) { row in row.int64(0) }
    }

    /// Every account link as a device owner, by device id.
    static func owners(in database: some SQLConnection) throws -> [Int64: [DeviceOwner]] {
        try database.withStatement(ownersSQL) { row in
            var owners: [Int64: [DeviceOwner]] = [:]
            while try row.step() {
                let selector = row.string(1) ?? ""
                let owner = DeviceOwner.acrobitsAccount(
                    selector: selector, channel: try row.acrobitsChannel(2, selector: selector),
                    username: row.string(3))
                owners[row.int64(0), default: []].append(owner)
            }
            return owners
        }
    }
}
