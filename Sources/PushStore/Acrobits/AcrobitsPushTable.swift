import PushCore

/// The read-only SQL of pnm2's and Matrix's device lookups: stored devices by (app, token).
enum AcrobitsPushTable {
    private static let deviceSQL = "SELECT id, sandbox FROM devices WHERE app_id = ?1 AND token = ?2"
    // Many keys in one statement, each row numbered by its key's place in the list (from 1):
    // on PostgreSQL every statement is a round trip, and a multisend or a notify asks for up
    // to a thousand devices. A key found nowhere has no row; a key listed twice, a row each.
    //
    // SQLite 3.40 (Debian 12's) has no unhex(): the keys come as one JSON list of [app id,
    // offset, length] and the tokens as one blob, each sliced out by substr() (on a blob it
    // counts bytes). One list, not one per column: joining json_each lists by their keys is
    // quadratic. Each key reaches devices through its (app_id, token) index.
    //
    // PostgreSQL's lists are arrays, bound in their text form (`PostgreSQLArrayLiteral`).
    // The LIMIT keeps the lateral query from being flattened into a join the planner may
    // hash over a scan of every device (OutboxTable's completion met that with its custom
    // plans): each key stays one probe of the unique index, as its own SELECT was.
    private static let devicesSQL = EngineSQL(
        sqlite: """
            SELECT k.key + 1, d.id, d.sandbox
            FROM json_each(?1) AS k
            JOIN devices AS d
                ON d.app_id = json_extract(k.value, '$[0]')
                AND d.token = substr(?2, json_extract(k.value, '$[1]'), json_extract(k.value, '$[2]'))
            """,
        postgresql: """
            SELECT k.n, d.id, d.sandbox
            FROM unnest(?1::text[], ?2::bytea[]) WITH ORDINALITY AS k(app_id, token, n)
            CROSS JOIN LATERAL (
                SELECT id, sandbox FROM devices WHERE app_id = k.app_id AND token = k.token LIMIT 1) AS d
            """)

    /// The stored device of each key, nil where there is none, in the keys' order: one
    /// statement for the whole list. One key, the common pnm2 send, keeps its one-row statement.
    static func devices<Connection: SQLConnection>(
        _ keys: [(appID: AppID, token: DeviceToken)], in database: Connection
    ) throws -> [AddressedDevice?] {
        guard keys.count > 1 else {
            return try keys.map { try device(appID: $0.appID, token: $0.token, in: database) }
        }
        return try database.withStatement(devicesSQL) { row in
            switch Connection.engine {
            case .sqlite:
                var slices: [JSONValue] = []
                slices.reserveCapacity(keys.count)
                var tokens: [UInt8] = []
                for key in keys {
                    slices.append(
                        .array([
                            .string(key.appID.rawValue), .number(Double(tokens.count + 1)),
                            .number(Double(key.token.bytes.count)),
                        ]))
                    tokens.append(contentsOf: key.token.bytes)
                }
                try row.bind(String(decoding: JSONValue.array(slices).encoded(), as: UTF8.self), tokens)
            case .postgresql:
                try row.bind(
                    PostgreSQLArrayLiteral.text(keys.map(\.appID.rawValue)),
                    PostgreSQLArrayLiteral.bytea(keys.map(\.token.bytes)))
            }
            var devices = [AddressedDevice?](repeating: nil, count: keys.count)
            while try row.step() {
                let index = Int(row.int64(0)) - 1
                guard devices.indices.contains(index) else { continue }
                let key = keys[index]
                devices[index] = AddressedDevice(
                    id: row.int64(1), appID: key.appID, token: key.token, sandbox: row.bool(2))
            }
            return devices
        }
    }

    private static func device(
        appID: AppID, token: DeviceToken, in database: some SQLConnection
    ) throws -> AddressedDevice? {
        try database.firstRow(deviceSQL, binding: appID.rawValue, token.bytes) { row in
            AddressedDevice(id: row.int64(0), appID: appID, token: token, sandbox: row.bool(1))
        }
    }
}
