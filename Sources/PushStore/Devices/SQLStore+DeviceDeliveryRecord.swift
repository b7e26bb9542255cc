import PushCore

// DeviceDeliveryRecord: outcomes and corrected APNs environments written back to devices.
extension SQLStore {
    public func recordOutcomes(_ outcomes: [(deviceID: Int64, summary: String)], now: Int64) throws {
        guard !outcomes.isEmpty else { return }
        try write { try DeviceTable.recordOutcomes(outcomes, now: now, in: $0) }
    }

    public func setSandbox(_ sandbox: Bool, deviceID: Int64) throws {
        try write { try DeviceTable.setSandbox(sandbox, deviceID: deviceID, in: $0) }
    }
}
