/// Deletes a device whose token is dead upstream, and with it every owner link of every
/// dialect and every push queued for it (the schema cascades).
public protocol DevicePruning: Sendable {
    /// Deletes device `id` unless it was re-registered after `deadSince` (APNs' 410
    /// `timestamp`, unix ms; nil: dead regardless). True only for the call that deleted it:
    /// a second report of the same dead token prunes nothing.
    func pruneDevice(id: Int64, deadSince: Int64?) throws -> Bool
}
