import PushCore

/// The one read of an account's links: each channel of a selector with its device, for a
/// Token Reporter report (what it would change) and for a push (where it goes).
enum AcrobitsLinkQuery {
    private static let sql = """
        SELECT a.channel, a.device_id, a.username, d.app_id, d.token, d.reported_token, d.updated_at, d.sandbox
        FROM acrobits_accounts AS a JOIN devices AS d ON d.id = a.device_id
        WHERE a.selector = ?1
        """

    /// What each channel of `selector` links to now.
    static func links(selector: String, in database: some SQLConnection) throws -> AcrobitsLinks {
        try database.withStatement(sql) { row in
            try row.bind(selector, at: 1)
            var links = AcrobitsLinks()
            while try row.step() {
                links[try row.acrobitsChannel(0, selector: selector)] = AcrobitsLink(
                    deviceID: row.int64(1), username: row.string(2),
                    device: LinkedDevice(
                        appID: row.string(3) ?? "", token: row.blob(4) ?? [], reportedToken: row.string(5),
                        updatedAt: row.int64(6), sandbox: row.bool(7)))
            }
            return links
        }
    }

    /// What `report` would do to the links stored now (see `SQLStore.writeReportStatements`).
    static func standing(of report: AccountReport, in database: some SQLConnection) throws -> ReportStanding {
        // The columns compared where the engine keeps them: this is the common report, and
        // `links` makes a `String` of every column.
        try database.withStatement(sql) { row in
            try row.bind(report.selector, at: 1)
            var kept = 0
            var unchanged = true
            while try row.step() {
                let channel = try row.acrobitsChannel(0, selector: report.selector)
                guard let token = report.tokens.first(where: { $0.channel == channel }) else { continue }
                guard row.text(3, is: token.appID.rawValue) && row.blob(4, is: token.token.bytes) else {
                    return .changesDevices
                }
                kept += 1
                unchanged =
                    unchanged && (report.username.map { row.text(2, is: $0) } ?? true)
                    && row.text(5, is: token.reportedToken) && DeviceTable.recordedToday(row.int64(6), now: report.now)
            }
            guard kept == report.tokens.count else { return .changesDevices }
            return unchanged ? .changesNothing : .keepsDevices
        }
    }
}
