import PushCore

// DevicePruning: a dead token deletes its device, and every dialect's links to it by cascade.
extension SQLStore {
    public func pruneDevice(id: Int64, deadSince: Int64?) throws -> Bool {
        try write { try Self.prune(deviceID: id, deadSince: deadSince, in: $0) }
    }

    /// The body of `pruneDevice`, also run by the outbox in the transaction that completes a
    /// batch. The schema cascades the device's links and queued pushes; the payloads only
    /// those pushes used are deleted here (nothing cascades from a child to its parent).
    static func prune(deviceID: Int64, deadSince: Int64?, in database: some SQLConnection) throws -> Bool {
        let payloadIDs = try OutboxTable.payloadIDs(deviceID: deviceID, in: database)
        guard try DeviceTable.prune(id: deviceID, deadSince: deadSince, in: database) else { return false }
        try OutboxPayloadTable.deleteIfUnused(payloadIDs, in: database)
        return true
    }
}
