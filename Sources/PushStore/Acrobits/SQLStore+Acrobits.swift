import PushCore

// AcrobitsAccountStore: Token Reporter and pnm2 accounts.
extension SQLStore {
    // The Token Reporter's hot path: one select of the account's links, then per channel one
    // update of the device it already links to when the token is that device's, else a device
    // upsert and a link write; a deletion only when a channel moved to a new token.
    //
    // Phones report the same token again and again: then only the device records the report
    // (`devices.updated_at`, which retention and pruning read), found by its id instead of
    // through the (app, token) index, and a link's `updated_at` says when it last changed (or
    // got a new username). Rewriting the unchanged links too cost a statement per channel and
    // a WAL page per request. The device itself is written only when the report changes it,
    // on a later day than its time's or with another spelling (`DeviceTable.timePrecision`):
    // rewriting its indexed time on every report moved an index entry for nothing (the
    // regression of 2026-11-28 in docs/performance.md).
    public func saveAccountTokens(selector: String, username: String?, tokens: [ChannelToken]) throws {
        guard !tokens.isEmpty else { return }
        try writeReport(
            AccountReport(selector: selector, username: username, tokens: tokens, now: clock()),
            admittingNewDevices: nil)
    }

    public func saveAccountTokens(
        selector: String, username: String?, tokens: [ChannelToken], admittingNewDevices: () throws -> Void
    ) throws {
        guard !tokens.isEmpty else { return }
        let report = AccountReport(selector: selector, username: username, tokens: tokens, now: clock())
        try withoutActuallyEscaping(admittingNewDevices) { admit in
            try writeReport(report, admittingNewDevices: admit)
        }
    }

    /// The report's statements in one write transaction: SQLite's way (`writeReport`). The
    /// PostgreSQL schema's `pushgate_save_account_tokens` is its twin.
    func writeReportStatements(_ report: AccountReport) throws {
        let (selector, username, tokens, now) = (report.selector, report.username, report.tokens, report.now)
        try write { database in
            var links = try AcrobitsLinkQuery.links(selector: selector, in: database)
            var replaced: [Int64] = []
            var recorded: [Int64: (spelling: String?, at: Int64)] = [:]
            for token in tokens {
                let deviceID: Int64
                if let link = links[token.channel], let device = link.device, device.isDevice(of: token) {
                    deviceID = link.deviceID
                    // A device this report wrote already (both channels on it): compared with that.
                    let stored = recorded[deviceID] ?? (device.reportedToken, device.updatedAt)
                    if DeviceTable.reportChanges(
                        storedSpelling: stored.spelling, storedAt: stored.at, reportedToken: token.reportedToken,
                        now: now)
                    {
                        try DeviceTable.recordReport(
                            ofDevice: deviceID, reportedToken: token.reportedToken, now: now, in: database)
                        recorded[deviceID] = (token.reportedToken, now)
                    }
                } else {
                    deviceID = try DeviceTable.upsert(
                        appID: token.appID, token: token.token, reportedToken: token.reportedToken, now: now,
                        in: database)
                    recorded[deviceID] = (token.reportedToken, now)
                }
                let previous = links.updateValue(
                    AcrobitsLink(deviceID: deviceID, username: username ?? links[token.channel]?.username),
                    forKey: token.channel)
                if previous?.deviceID == deviceID {
                    if let username, username != previous?.username {
                        try AcrobitsAccountTable.rename(
                            selector: selector, channel: token.channel, username: username, now: now, in: database)
                    }
                    continue
                }
                try AcrobitsAccountTable.link(
                    selector: selector, channel: token.channel, username: username, deviceID: deviceID, now: now,
                    in: database)
                if let previous { replaced.append(previous.deviceID) }
            }
            // After every link is written, so that two channels swapping tokens keep both.
            try DeviceTable.deleteOwnerless(replaced, in: database)
        }
    }

    public func removeAccount(selector: String) throws -> Int {
        try write { database in
            let deviceIDs = try AcrobitsAccountTable.delete(selector: selector, in: database)
            try DeviceTable.deleteOwnerless(deviceIDs, in: database)
            return deviceIDs.count
        }
    }
}
