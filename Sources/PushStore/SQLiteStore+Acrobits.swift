import PushCore

// AcrobitsAccountStore: Token Reporter and pnm2 accounts.
extension SQLiteStore {
    // The Token Reporter's hot path: one transaction of cached statements: BEGIN, one select,
    // per channel a device upsert and a link upsert (an update of the link's time when it is
    // unchanged), COMMIT; a deletion only when a channel moved to a new token.
    public func saveAccountTokens(selector: String, username: String?, tokens: [ChannelToken]) throws {
        guard !tokens.isEmpty else { return }
        let now = clock()
        try write { database in
            var links = try AcrobitsAccountTable.links(selector: selector, in: database)
            var replaced: [Int64] = []
            for token in tokens {
                let deviceID = try DeviceTable.upsert(
                    appID: token.appID, token: token.token, reportedToken: token.reportedToken, now: now, in: database)
                let previous = links.updateValue(deviceID, forKey: token.channel)
                if previous == deviceID {
                    // Phones report the same token again and again: the common case.
                    try AcrobitsAccountTable.touch(
                        selector: selector, channel: token.channel, username: username, now: now, in: database)
                    continue
                }
                try AcrobitsAccountTable.link(
                    selector: selector, channel: token.channel, username: username, deviceID: deviceID, now: now,
                    in: database)
                if let previous { replaced.append(previous) }
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
