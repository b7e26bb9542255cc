import PushCore

// AcrobitsPushDirectory: what pnm2 looks up before it pushes.
extension SQLStore {
    public func storedDevices(_ keys: [(appID: AppID, token: DeviceToken)]) throws -> [AddressedDevice?] {
        guard !keys.isEmpty else { return [] }
        return try read { database in
            try keys.map { try AcrobitsPushTable.device(appID: $0.appID, token: $0.token, in: database) }
        }
    }

    public func accountDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice] {
        try read { try AcrobitsPushTable.accountDevices(selector: selector, in: $0) }
    }
}
