/// One table as `pushgate export` writes it and `pushgate import` reads it back: every
/// column, in the schema's order, under the column's own name.
///
/// `TransferTable.all` is the one list of what an export holds. It must name every table
/// and column of the schema (TransferCoverageTests compares it with the migrated schema on
/// both engines), so that a migration adding one fails a test until it is listed here.
struct TransferTable: Sendable {
    /// The table's name in SQL.
    let name: String
    /// The `type` of its lines in an export.
    let type: String
    let columns: [TransferColumn]
    /// The primary key: exports read the table in this order, a page at a time.
    let key: [String]

    /// Row ids are not kept across engines or stores: the rows that others refer to
    /// (devices, outbox payloads) get new ids on import, and what refers to them is mapped.
    enum IDSpace: String, Sendable {
        case device
        case payload
    }

    /// In the order import needs them: a table comes after every table it refers to.
    static let all: [TransferTable] = [
        TransferTable(
            name: "apps", type: "app",
            columns: [
                .text("id"), .text("platform"), .text("apns_team_id"), .text("apns_key_id"),
                .text("apns_private_key_pem"), .text("apns_certificate_pem"), .text("apns_certificate_key_pem"),
                .text("fcm_service_account_json"), .text("fcm_project_id"), .text("apns_topic"),
                .text("apns_push_type"), .integer("sandbox"), .integer("created_at"), .integer("updated_at"),
                .text("web_vapid_private_key_pem"), .text("web_vapid_subject"), .integer("matrix"),
            ],
            key: ["id"]),
        TransferTable(
            name: "app_checks", type: "app_check",
            columns: [.text("app_id"), .integer("checked_at"), .integer("ok"), .text("detail")],
            key: ["app_id"]),
        TransferTable(
            name: "beams_instances", type: "beams_instance",
            columns: [.text("app_key"), .text("platform"), .text("app_id")],
            key: ["app_key", "platform"]),
        TransferTable(
            name: "devices", type: "device",
            columns: [
                .rowID("id", .device), .text("app_id"), .blob("token"), .text("reported_token"), .text("platform"),
                .integer("sandbox"), .text("apns_topic"), .integer("created_at"), .integer("updated_at"),
            ],
            key: ["id"]),
        TransferTable(
            name: "device_outcomes", type: "device_outcome",
            columns: [.reference("device_id", .device), .text("outcome"), .integer("at")],
            key: ["device_id"]),
        TransferTable(
            name: "acrobits_accounts", type: "acrobits_account",
            columns: [
                .text("selector"), .text("channel"), .text("username"), .reference("device_id", .device),
                .integer("updated_at"),
            ],
            key: ["selector", "channel"]),
        TransferTable(
            name: "users", type: "user",
            columns: [.text("id"), .text("name"), .text("password_hash"), .integer("created_at")],
            key: ["id"]),
        TransferTable(
            name: "user_devices", type: "user_device",
            columns: [.text("user_id"), .reference("device_id", .device)],
            key: ["user_id", "device_id"]),
        TransferTable(
            name: "beams_clients", type: "beams_client",
            columns: [
                .text("id"), .text("app_id"), .reference("device_id", .device), .integer("created_at"),
                .integer("updated_at"), .text("user_id"), .text("metadata"),
            ],
            key: ["id"]),
        TransferTable(
            name: "beams_interests", type: "beams_interest",
            columns: [.text("client_id"), .text("interest")],
            key: ["client_id", "interest"]),
        TransferTable(
            name: "bridge_subscriptions", type: "bridge_subscription",
            columns: [.reference("device_id", .device), .text("topic_selector"), .integer("created_at")],
            key: ["device_id", "topic_selector"]),
        TransferTable(
            name: "api_keys", type: "sender_key",
            columns: [
                .text("name"), .text("key_hash"), .integer("created_at"), .integer("revoked_at"), .text("app_scope"),
                .text("dialect_scope"), .integer("is_operator"), .text("beams_secret"),
            ],
            key: ["name"]),
        TransferTable(
            name: "apns_provider_tokens", type: "apns_provider_token",
            columns: [
                .text("team_id"), .text("key_id"), .text("key_fingerprint"), .text("token"), .integer("issued_at"),
            ],
            key: ["team_id", "key_id"]),
        TransferTable(
            name: "outbox_payloads", type: "outbox_payload",
            columns: [
                .rowID("id", .payload), .text("source"), .blob("apns_payload"), .text("apns_push_type"),
                .integer("apns_priority"), .text("apns_topic"), .integer("apns_expiration"),
                .text("apns_collapse_id"), .text("apns_id"), .text("fcm_message"), .integer("created_at"),
                .blob("web_payload"), .integer("web_ttl"), .text("web_urgency"), .text("web_topic"),
            ],
            key: ["id"]),
        TransferTable(
            name: "outbox", type: "outbox_row",
            columns: [
                .rowID("id", nil), .reference("payload_id", .payload), .reference("device_id", .device),
                .text("state"), .integer("attempts"), .integer("next_attempt_at"), .integer("claimed_until"),
                .text("last_error"), .integer("created_at"), .text("claimed_by"),
            ],
            key: ["id"]),
        TransferTable(
            name: "outbox_fanouts", type: "outbox_fanout",
            columns: [
                .reference("payload_id", .payload), .text("app_ids"), .text("interests"), .integer("interest_index"),
                .text("after_client"), .integer("created_at"),
            ],
            key: ["payload_id"]),
        TransferTable(
            name: "delivery_log", type: "delivery_log_entry",
            columns: [
                .rowID("id", nil), .integer("at"), .text("app_id"), .text("token"), .text("outcome"),
                .text("detail"), .text("source"),
            ],
            key: ["id"]),
    ]

    /// Tables of the schema that are no data of the store's: the migration history, which
    /// the target has of its own (an export names its schema version in its first line),
    /// housekeeping's schedule and counts, whose one row the target's migration made, and
    /// the samples of the database's size, which measure the source database (another
    /// engine measures another way) and not the target's.
    static let notExported: Set<String> = ["schema_migrations", "housekeeping", "database_sizes"]

    static let byType: [String: TransferTable] = Dictionary(uniqueKeysWithValues: all.map { ($0.type, $0) })

    /// The columns an INSERT sets: all but a row id, which the target gives anew.
    var insertedColumns: [TransferColumn] { columns.filter { !$0.isRowID } }
}

/// One column of a `TransferTable`, and what its values are.
struct TransferColumn: Sendable {
    enum Kind: Sendable {
        case text
        case integer
        /// Bytes, written as base64 in an export.
        case blob
        /// The table's integer key. Written in the export for what refers to the row, and
        /// given anew by the target; `space` names what refers to it (nil: nothing does).
        case rowID(TransferTable.IDSpace?)
        /// Another table's row id, mapped on import to the id the target gave that row.
        case reference(TransferTable.IDSpace)
    }

    let name: String
    let kind: Kind

    static func text(_ name: String) -> TransferColumn { TransferColumn(name: name, kind: .text) }
    static func integer(_ name: String) -> TransferColumn { TransferColumn(name: name, kind: .integer) }
    static func blob(_ name: String) -> TransferColumn { TransferColumn(name: name, kind: .blob) }
    static func rowID(_ name: String, _ space: TransferTable.IDSpace?) -> TransferColumn {
        TransferColumn(name: name, kind: .rowID(space))
    }
    static func reference(_ name: String, _ space: TransferTable.IDSpace) -> TransferColumn {
        TransferColumn(name: name, kind: .reference(space))
    }

    var isRowID: Bool {
        if case .rowID = kind { return true }
        return false
    }
}
