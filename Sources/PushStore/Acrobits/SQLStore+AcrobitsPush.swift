import PushCore

// AcrobitsPushDirectory: what pnm2 and Matrix look up before they push. Each is one
// statement, a consistent snapshot of its own: no read transaction, whose BEGIN and COMMIT
// are two more round trips on PostgreSQL.
extension SQLStore {
    public func storedDevices(_ keys: [(appID: AppID, token: DeviceToken)]) throws -> [AddressedDevice?] {
        guard !keys.isEmpty else { return [] }
        return try withDatabase { try AcrobitsPushTable.devices(keys, in: $0) }
    }

    public func accountDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice] {
        try withDatabase { try AcrobitsLinkQuery.links(selector: selector, in: $0) }.addressedDevices(
            selector: selector)
    }
}
