import Glibc

/// PUSHGATE_SOCKET_GROUP turned into the group id the socket file is given: nginx's workers
/// reach a 0660 socket through its group when they run as another user.
enum SocketGroup {
    struct Unknown: Error, CustomStringConvertible {
        let name: String
        var description: String {
            "PUSHGATE_SOCKET_GROUP=\(name): no such group on this machine (getent group \(name))"
        }
    }

    /// A group name as useradd takes it, or a number.
    static func isWellFormed(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
    }

    /// The id of the group named (or numbered) `text`.
    static func id(of text: String) throws -> UInt32 {
        if let number = UInt32(text) { return number }
        guard let entry = getgrnam(text) else { throw Unknown(name: text) }
        return UInt32(entry.pointee.gr_gid)
    }
}
