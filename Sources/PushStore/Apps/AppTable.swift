import PushCore

/// The SQL of `apps`, and the mapping between its rows and `RegisteredApp`. An app's Beams
/// key lives in `beams_instances` (see `BeamsInstanceTable`); `apps.app_key` is no longer used.
enum AppTable {
    private static let columns = """
        id, platform, apns_team_id, apns_key_id, apns_private_key_pem, apns_certificate_pem,
        apns_certificate_key_pem, fcm_service_account_json, fcm_project_id, apns_topic,
        apns_push_type, sandbox, web_vapid_private_key_pem, web_vapid_subject, matrix
        """
    private static let selectedColumns = """
        \(columns), (SELECT b.app_key FROM beams_instances AS b WHERE b.app_id = apps.id)
        """
    private static let existsSQL = "SELECT 1 FROM apps WHERE id = ?"
    private static let platformSQL = "SELECT platform FROM apps WHERE id = ?"
    // One statement for add and replace: created_at survives a replace.
    private static let upsertSQL = """
        INSERT INTO apps (\(columns), created_at, updated_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?16, ?15, ?15)
        ON CONFLICT (id) DO UPDATE SET
            platform = excluded.platform,
            apns_team_id = excluded.apns_team_id,
            apns_key_id = excluded.apns_key_id,
            apns_private_key_pem = excluded.apns_private_key_pem,
            apns_certificate_pem = excluded.apns_certificate_pem,
            apns_certificate_key_pem = excluded.apns_certificate_key_pem,
            fcm_service_account_json = excluded.fcm_service_account_json,
            fcm_project_id = excluded.fcm_project_id,
            apns_topic = excluded.apns_topic,
            apns_push_type = excluded.apns_push_type,
            sandbox = excluded.sandbox,
            web_vapid_private_key_pem = excluded.web_vapid_private_key_pem,
            web_vapid_subject = excluded.web_vapid_subject,
            matrix = excluded.matrix,
            updated_at = excluded.updated_at
        """
    private static let selectOneSQL = "SELECT \(selectedColumns) FROM apps WHERE id = ?"
    private static let selectAllSQL = "SELECT \(selectedColumns) FROM apps ORDER BY id"
    private static let deleteSQL = "DELETE FROM apps WHERE id = ?"

    /// Only the platform: the Token Reporter's check on every report, without decoding keys.
    static func platform(of id: AppID, in database: some SQLConnection) throws -> Platform? {
        try database.withStatement(platformSQL) { statement in
            try statement.bind(id.rawValue, at: 1)
            guard try statement.step(), let name = statement.string(0) else { return nil }
            guard let platform = Platform(rawValue: name) else {
                throw StoredValueError(table: "apps", column: "platform", value: name, rowKey: id.rawValue)
            }
            return platform
        }
    }

    static func exists(_ id: AppID, in database: some SQLConnection) throws -> Bool {
        try database.firstRow(existsSQL, binding: id.rawValue) { _ in true } ?? false
    }

    /// Inserts `app`, or updates the row of its id, and puts it behind its Beams key (or
    /// behind none).
    static func upsert(_ app: RegisteredApp, now: Int64, in database: some SQLConnection) throws {
        try database.withStatement(upsertSQL) { statement in
            try statement.bind(app.id.rawValue, app.platform.rawValue)
            // Exactly one kind of credential per row (the table's CHECK): the others stay NULL.
            switch app.credentials {
            case .apnsToken(let teamID, let keyID, let privateKeyPEM):
                try statement.bind(teamID, at: 3)
                try statement.bind(keyID, at: 4)
                try statement.bind(privateKeyPEM, at: 5)
            case .apnsCertificate(let certificatePEM, let privateKeyPEM):
                try statement.bind(certificatePEM, at: 6)
                try statement.bind(privateKeyPEM, at: 7)
            case .fcmServiceAccount(let json, let projectID):
                try statement.bind(json, at: 8)
                try statement.bind(projectID, at: 9)
            case .webPush(let privateKeyPEM, let subject):
                try statement.bind(privateKeyPEM, at: 13)
                try statement.bind(subject, at: 14)
            }
            try statement.bind(app.apnsTopic, at: 10)
            try statement.bind(app.apnsPushType?.rawValue, at: 11)
            try statement.bind(app.sandbox, at: 12)
            try statement.bind(now, at: 15)
            try statement.bind(app.openToMatrix, at: 16)
            try statement.run()
        }
        try BeamsInstanceTable.assign(appID: app.id, appKey: app.appKey, platform: app.platform, in: database)
    }

    static func app(id: AppID, in database: some SQLConnection) throws -> RegisteredApp? {
        try database.firstRow(selectOneSQL, binding: id.rawValue) { statement in try decode(statement) }
    }

    static func apps(in database: some SQLConnection) throws -> [RegisteredApp] {
        try database.rows(selectAllSQL) { statement in try decode(statement) }
    }

    /// True when there was an app of that id.
    static func delete(id: AppID, in database: some SQLConnection) throws -> Bool {
        try database.run(deleteSQL, binding: id.rawValue) > 0
    }

    /// Reads the current row of a statement that selected `selectedColumns`.
    private static func decode(_ row: some SQLRow) throws -> RegisteredApp {
        let rawID = row.string(0) ?? ""
        func invalid(_ column: String, _ value: String?) -> StoredValueError {
            StoredValueError(table: "apps", column: column, value: value ?? "NULL", rowKey: rawID)
        }
        guard let id = AppID(rawID) else { throw invalid("id", rawID) }

        let credentials: AppCredentials
        switch row.string(1) {
        case Platform.apns.rawValue:
            if let teamID = row.string(2), let keyID = row.string(3), let key = row.string(4) {
                credentials = .apnsToken(teamID: teamID, keyID: keyID, privateKeyPEM: key)
            } else if let certificate = row.string(5), let key = row.string(6) {
                credentials = .apnsCertificate(certificatePEM: certificate, privateKeyPEM: key)
            } else {
                throw invalid("apns_*", "no complete APNs credential")
            }
        case Platform.fcm.rawValue:
            guard let json = row.string(7), let projectID = row.string(8) else {
                throw invalid("fcm_*", "no complete FCM credential")
            }
            credentials = .fcmServiceAccount(json: json, projectID: projectID)
        case Platform.web.rawValue:
            guard let key = row.string(12), let subject = row.string(13) else {
                throw invalid("web_*", "no complete VAPID credential")
            }
            credentials = .webPush(vapidPrivateKeyPEM: key, subject: subject)
        case let other:
            throw invalid("platform", other)
        }

        var pushType: APNsPushType?
        if let rawPushType = row.string(10) {
            guard let parsed = APNsPushType(rawValue: rawPushType) else { throw invalid("apns_push_type", rawPushType) }
            pushType = parsed
        }
        return RegisteredApp(
            id: id, credentials: credentials, apnsTopic: row.string(9), apnsPushType: pushType,
            sandbox: row.bool(11) ?? false, appKey: row.string(15), openToMatrix: row.bool(14) ?? false)
    }
}
