import PushCore

/// Which resource of the Beams device API a path names: `/device_api/v1/instances/…` as the
/// SDKs send it by default, or `/instances/…` as the Android SDK does when its host override
/// is a bare origin, as the routes matched it. Segments are percent-decoded here (the web SDK
/// encodes the instance id, interest names and, on delete, the device id).
struct BeamsDevicePath: Equatable {
    enum Resource: Equatable {
        /// `…/web-vapid-public-key`
        case vapidPublicKey
        /// `…/devices/{platform}`
        case devices
        /// `…/devices/{platform}/{id}`; nil for an id this server cannot have issued (a delete
        /// of it still succeeds, as for any unknown device).
        case device(id: String?)
        /// `…/devices/{platform}/{id}/token`, `…/metadata`, `…/user`, `…/interests`
        case token(id: String)
        case metadata(id: String)
        case user(id: String)
        case interests(id: String)
        /// `…/devices/{platform}/{id}/interests/{name}` (the name unchecked).
        case interest(id: String, name: String)
    }

    /// What a named route's path names; the values come from its parameters.
    enum Shape: CaseIterable {
        case vapidPublicKey, devices, device, token, metadata, user, interests, interest
        /// `…/devices/{platform}/` and `…/interests/`: no device id, no interest name.
        case deviceWithoutID, interestWithoutName

        /// The pattern after `{prefix}/{instance}`, and the methods it serves.
        var route: (pattern: String, methods: [String]) {
            let device = "/devices/{platform}/{device}"
            switch self {
            case .vapidPublicKey: return ("/web-vapid-public-key", ["GET"])
            case .devices: return ("/devices/{platform}", ["POST"])
            case .device: return (device, ["GET", "DELETE"])
            case .deviceWithoutID: return ("/devices/{platform}/", ["GET", "DELETE"])
            case .token: return (device + "/token", ["PUT"])
            case .metadata: return (device + "/metadata", ["PUT"])
            case .user: return (device + "/user", ["PUT"])
            case .interests: return (device + "/interests", ["GET", "PUT"])
            case .interest: return (device + "/interests/{interest}", ["POST", "DELETE"])
            case .interestWithoutName: return (device + "/interests/", ["POST", "DELETE"])
            }
        }
    }

    /// Where the resources live: the SDKs' default and the Android host override's.
    static let prefixes = ["/device_api/v1/instances", "/instances"]

    /// The device API's routes, each answered by `handler(shape)` for its methods; the rest of
    /// `/device_api/…` and `/instances/…` refused by `refuse(unmatched:)`. Every route keeps
    /// the metrics label of its first segment.
    static func routes(_ handler: (Shape) -> any DialectHandler) -> [Router.Route] {
        var routes: [Router.Route] = []
        for prefix in prefixes {
            let (label, base) = ("/" + String(prefix.split(separator: "/")[0]), prefix + "/{instance}")
            for shape in Shape.allCases {
                let (pattern, methods) = shape.route
                routes.append(.init(base + pattern, handler(shape), endpoint: label, methods: methods))
            }
            routes.append(Router.Route(label + "/{path...}", unknownPath))
        }
        return routes
    }

    private static let unknownPath = UnknownPath { try refuse(unmatched: $0.path) }

    var instanceID: String
    /// The platform segment (`apns`, `fcm`, `web`); nil for the VAPID key.
    var platform: Platform?
    var resource: Resource

    /// The resource a named route took: its parameters percent-decoded, then the platform and
    /// the device id judged.
    init(_ shape: Shape, _ parameters: RouteParameters) throws(BeamsError) {
        func decoded(_ name: String) throws(BeamsError) -> String? {
            guard let raw = parameters[name] else { return nil }
            return try Self.decode(raw)
        }
        // Every segment decoded before any is judged, as for a path no route took.
        instanceID = try decoded("instance") ?? ""
        let (platformName, device, interest) = (try decoded("platform"), try decoded("device"), try decoded("interest"))
        platform = try platformName.map { name throws(BeamsError) in try Self.platform(name) }
        func id() throws(BeamsError) -> String { try Self.deviceID(device ?? "") }
        switch shape {
        case .vapidPublicKey: resource = .vapidPublicKey
        case .devices: resource = .devices
        case .device: resource = .device(id: try? id())
        case .deviceWithoutID: resource = .device(id: nil)
        case .token: resource = .token(id: try id())
        case .metadata: resource = .metadata(id: try id())
        case .user: resource = .user(id: try id())
        case .interests: resource = .interests(id: try id())
        case .interest, .interestWithoutName: resource = .interest(id: try id(), name: interest ?? "")
        }
    }

    /// The refusal of a path under the prefixes that no route took, read for what is wrong
    /// with it (the SDKs act on the status: 404 registers again, 400 drops the job).
    static func refuse(unmatched path: String) throws(BeamsError) -> Never {
        guard let prefix = Self.prefixes.first(where: { path.hasPrefix($0 + "/") }) else {
            throw .notFound("No such resource: the device API serves /device_api/v1/instances/<instance id>/….")
        }
        let raw = path.utf8.dropFirst(prefix.utf8.count + 1).split(
            separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let parts = try raw.map { (segment) throws(BeamsError) in try Self.decode(Substring(segment)) }
        guard let instance = parts.first, !instance.isEmpty else { throw .instanceNotFound }
        guard parts.count >= 3, parts[1] == "devices" else { throw .notFound("No such resource.") }
        _ = try Self.platform(parts[2])
        if parts.count == 5 || (parts.count == 6 && parts[4] == "interests") { _ = try Self.deviceID(parts[3]) }
        throw .notFound("No such resource.")
    }

    private static func decode(_ segment: Substring) throws(BeamsError) -> String {
        do {
            return try FormParameters.percentDecode(segment, plusAsSpace: false)
        } catch {
            throw .invalidField("The path is not validly percent-encoded.")
        }
    }

    /// The platform segment: `apns`, `fcm` or `web`, as the platforms are named.
    private static func platform(_ name: String) throws(BeamsError) -> Platform {
        guard let platform = Platform(rawValue: name) else {
            throw .notFound("No such resource: the device platforms are apns, fcm and web.")
        }
        return platform
    }

    /// Ids this server issues are UUIDs; anything that could not be one is an unknown device
    /// (a 404, on which the mobile SDKs register again).
    private static func deviceID(_ segment: String) throws(BeamsError) -> String {
        guard RandomIdentifier.couldBeIssued(segment) else { throw .notFound("Could not find the device.") }
        return segment
    }
}
