import PushCore

/// Which resource of the Beams client API a path names.
enum BeamsClientPath: Equatable {
    /// `/v1/clients`
    case clients
    /// `/v1/clients/:client_id/token`
    case token(clientID: String)
    /// `/v1/clients/:client_id/interests/:interest_name` (the name percent-decoded, unchecked).
    case interest(clientID: String, name: String)

    init(_ path: String, prefix: String) throws(BeamsError) {
        guard path.hasPrefix(prefix) else { throw .notFound("No such resource.") }
        let rest = path.dropFirst(prefix.count)
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "/v1/clients…" splits into "", "v1", "clients", …
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "v1", parts[2] == "clients" else {
            throw .notFound("No such resource: the client API serves /v1/clients.")
        }
        switch parts.count {
        case 3:
            self = .clients
        case 5 where parts[4] == "token":
            self = .token(clientID: try Self.clientID(parts[3]))
        case 6 where parts[4] == "interests":
            let name: String
            do {
                name = try FormParameters.percentDecode(parts[5], plusAsSpace: false)
            } catch {
                throw .invalidField("The interest name is not validly percent-encoded.")
            }
            self = .interest(clientID: try Self.clientID(parts[3]), name: name)
        default:
            throw .notFound("No such resource.")
        }
    }

    /// Ids this server issues are UUIDs; anything that could not be one is simply unknown.
    private static func clientID(_ segment: String) throws(BeamsError) -> String {
        let bytes = Array(segment.utf8)
        let plausible =
            !bytes.isEmpty && bytes.count <= 64
            && bytes.allSatisfy {
                ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 == UInt8(ascii: "-")
            }
        guard plausible else { throw .notFound("Client not found.") }
        return segment
    }
}
