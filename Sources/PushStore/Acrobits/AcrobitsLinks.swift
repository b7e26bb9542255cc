import PushCore

/// An account's links by channel. Two channels: two slots, where a dictionary allocated a
/// table and hashed the channel on every report.
struct AcrobitsLinks {
    private var calls: AcrobitsLink?
    private var msgs: AcrobitsLink?

    subscript(channel: AcrobitsChannel) -> AcrobitsLink? {
        get {
            switch channel {
            case .calls: calls
            case .msgs: msgs
            }
        }
        set {
            switch channel {
            case .calls: calls = newValue
            case .msgs: msgs = newValue
            }
        }
    }

    /// Each channel's device as a push addresses it. A stored app id no app can have is the
    /// stored data's fault, named as such.
    func addressedDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice] {
        var devices: [AcrobitsChannel: AddressedDevice] = [:]
        for channel in AcrobitsChannel.allCases {
            guard let link = self[channel], let device = link.device else { continue }
            guard let appID = AppID(device.appID) else {
                throw StoredValueError(table: "devices", column: "app_id", value: device.appID, rowKey: selector)
            }
            devices[channel] = AddressedDevice(
                id: link.deviceID, appID: appID, token: DeviceToken(bytes: device.token), sandbox: device.sandbox)
        }
        return devices
    }

    /// Links `channel` to `link`, giving back what it linked to before.
    mutating func updateValue(_ link: AcrobitsLink, forKey channel: AcrobitsChannel) -> AcrobitsLink? {
        defer { self[channel] = link }
        return self[channel]
    }
}
