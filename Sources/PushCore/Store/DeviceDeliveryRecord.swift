/// What deliveries taught about stored devices, written back for operators (`tokens list`)
/// and for the next push (the APNs environment).
public protocol DeviceDeliveryRecord: Sendable {
    /// Sets each device's last outcome (`device_outcomes`) at `now` (unix seconds), in
    /// one transaction. Devices no longer stored are skipped.
    func recordOutcomes(_ outcomes: [(deviceID: Int64, summary: String)], now: Int64) throws
    /// The device answered in the other APNs environment than it was sent to: from now on it
    /// uses `sandbox`.
    func setSandbox(_ sandbox: Bool, deviceID: Int64) throws
}

extension DeliveryResult {
    /// One line for `device_outcomes`.
    public var summary: String {
        switch self {
        case .delivered: return "delivered"
        case .deadToken(let reason, _): return "dead token: \(reason)"
        case .rejected(let status, let reason): return "rejected (\(status)): \(reason)"
        case .retryLater(let reason, _): return "not delivered, retrying: \(reason)"
        }
    }
}
