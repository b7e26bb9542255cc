import PushCore

// DeviceInventory: every device with its owners, for operators.
extension SQLStore {
    public func devices() throws -> [StoredDevice] {
        // One snapshot: a device and its owners must come from the same moment.
        try read { database in
            let owners = try DeviceOwnerQueries.all(in: database)
            var devices = try DeviceTable.all(in: database)
            for index in devices.indices {
                devices[index].owners = owners[devices[index].id] ?? []
            }
            return devices
        }
    }
}
