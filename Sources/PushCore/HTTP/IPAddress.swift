#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address in numeric form, and whether it is outside the public internet.
public struct IPAddress: Equatable, Sendable, CustomStringConvertible {
    /// 4 or 16 bytes.
    public let bytes: [UInt8]

    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    /// From 4 or 16 bytes in network order (a `sockaddr`'s).
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &text, socklen_t(text.count)) }
        return String(cString: text)
    }

    /// The special-purpose range the address is in, or nil for an address of the public
    /// internet (see `SpecialPurposeRange`). IPv4 inside IPv6 (mapped, the NAT64 well-known
    /// prefix) is judged by its IPv4 address.
    public var specialPurposeRange: SpecialPurposeRange? {
        if bytes.count == 4 { return SpecialPurposeRange.ipv4.first { $0.contains(bytes) } }
        if SpecialPurposeRange.embeddingIPv4.contains(where: { $0.contains(bytes) }) {
            return SpecialPurposeRange.ipv4.first { $0.contains(Array(bytes[12..<16])) }
        }
        return SpecialPurposeRange.ipv6.first { $0.contains(bytes) }
    }

    public var isSpecialPurpose: Bool { specialPurposeRange != nil }

    /// An IPv4 address as a dual-stack socket shows it (`::ffff:a.b.c.d`), its IPv4 address in
    /// the last four bytes.
    public var isIPv4Mapped: Bool {
        bytes.count == 16 && bytes.prefix(10).allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
    }
}
