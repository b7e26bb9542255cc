import PushCore

/// Which resource of the Beams device API a path names: `/device_api/v1/instances/…` as the
/// SDKs send it by default, or `/instances/…` as the Android SDK does when its host override
/// is a bare origin. Segments arrive percent-decoded (the web SDK encodes the instance id,
/// interest names and, on delete, the device id).
struct BeamsDevicePath: Equatable {
    enum Resource: Equatable {
        /// `…/web-vapid-public-key`
        case vapidPublicKey
        /// `…/devices/{platform}`
        case devices
        /// `…/devices/{platform}/{id}`
        case device(id: String)
        /// `…/devices/{platform}/{id}/token`, `…/metadata`, `…/user`, `…/interests`
        case token(id: String)
        case metadata(id: String)
        case user(id: String)
        case interests(id: String)
        /// `…/devices/{platform}/{id}/interests/{name}` (the name unchecked).
        case interest(id: String, name: String)
    }

    static let prefixes = ["/device_api/v1/instances/", "/instances/"]

    var instanceID: String
    /// The platform segment (`apns`, `fcm`, `web`); nil for the VAPID key.
    var platform: Platform?
    var resource: Resource

    init(_ path: String) throws(BeamsError) {
        guard let prefix = Self.prefixes.first(where: { path.hasPrefix($0) }) else {
            throw .notFound("No such resource: the device API serves /device_api/v1/instances/<instance id>/….")
        }
        var parts: [String] = []
        for raw in path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false) {
            do {
                parts.append(try FormParameters.percentDecode(raw, plusAsSpace: false))
            } catch {
                throw .invalidField("The path is not validly percent-encoded.")
            }
        }
        guard let instance = parts.first, !instance.isEmpty else { throw .instanceNotFound }
        instanceID = instance
        if parts.count == 2, parts[1] == "web-vapid-public-key" {
            platform = nil
            resource = .vapidPublicKey
            return
        }
        guard parts.count >= 3, parts[1] == "devices" else { throw .notFound("No such resource.") }
        guard let named = Platform(beamsName: parts[2]) else {
            throw .notFound("No such resource: the device platforms are apns, fcm and web.")
        }
        platform = named
        switch parts.count {
        case 3: resource = .devices
        case 4: resource = .device(id: try Self.deviceID(parts[3]))
        case 5:
            let id = try Self.deviceID(parts[3])
            switch parts[4] {
            case "token": resource = .token(id: id)
            case "metadata": resource = .metadata(id: id)
            case "user": resource = .user(id: id)
            case "interests": resource = .interests(id: id)
            default: throw .notFound("No such resource.")
            }
        case 6 where parts[4] == "interests":
            resource = .interest(id: try Self.deviceID(parts[3]), name: parts[5])
        default:
            throw .notFound("No such resource.")
        }
    }

    /// Ids this server issues are UUIDs; anything that could not be one is an unknown device
    /// (a 404, on which the mobile SDKs register again).
    private static func deviceID(_ segment: String) throws(BeamsError) -> String {
        let plausible =
            !segment.isEmpty && segment.utf8.count <= 64
            && segment.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "-")
            }
        guard plausible else { throw .notFound("Could not find the device.") }
        return segment
    }
}

extension Platform {
    /// The device API's platform segment: `apns`, `fcm` or `web`.
    init?(beamsName: String) {
        switch beamsName {
        case "apns": self = .apns
        case "fcm": self = .fcm
        case "web": self = .web
        default: return nil
        }
    }
}
