import PushCore

// AcrobitsPushDirectory: what pnm2 looks up before it pushes.
extension SQLStore {
    public func storedDevices(_ keys: [(appID: AppID, token: DeviceToken)]) throws -> [AddressedDevice?] {
        guard !keys.isEmpty else { return [] }
        return try read { database in
            try keys.map { try AcrobitsPushTable.device(appID: $0.appID, token: $0.token, in: database) }
        }
    }

    // One statement, a consistent snapshot of its own: no read transaction, whose BEGIN and
    // COMMIT are two more round trips on PostgreSQL.
    public func accountDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice] {
        try withDatabase { try AcrobitsLinkQuery.links(selector: selector, in: $0) }.addressedDevices(selector: selector)
    }
}
