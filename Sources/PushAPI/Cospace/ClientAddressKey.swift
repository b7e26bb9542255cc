import Foundation

/// The part of a client address that a limit counts: an IPv4 address whole, an IPv6 address
/// by its /64 (one subscriber's network: a client picks any address inside it at will).
struct ClientAddressKey: Equatable {
    let text: String

    init(_ address: String) {
        let lowered = address.lowercased()
        // An IPv4 client on an IPv6 socket: count it as the IPv4 address it is.
        if lowered.hasPrefix("::ffff:"), !lowered.dropFirst(7).contains(":") {
            text = String(lowered.dropFirst(7))
            return
        }
        guard lowered.contains(":"), let groups = Self.groups(lowered) else {
            text = lowered
            return
        }
        text = groups.prefix(4).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
    }

    /// The eight 16-bit groups of an IPv6 address in text (`::` expanded, a zone dropped),
    /// nil when it is not one.
    static func groups(_ address: String) -> [UInt16]? {
        let bare = address.split(separator: "%", maxSplits: 1).first.map(String.init) ?? address
        let halves = bare.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func parse(_ part: String) -> [UInt16]? {
            if part.isEmpty { return [] }
            var groups: [UInt16] = []
            for piece in part.split(separator: ":", omittingEmptySubsequences: false) {
                guard piece.count <= 4, let value = UInt16(piece, radix: 16) else { return nil }
                groups.append(value)
            }
            return groups
        }
        guard let head = parse(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = parse(halves[1]), head.count + tail.count < 8 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}
