#if canImport(Glibc)
    import Glibc
#endif

/// An IP address as `inet_ntop` spells it (`127.0.0.1`, `::1`), for log lines and messages.
enum AddressText {
    /// `family` is AF_INET or AF_INET6, `address` an `in_addr` or `in6_addr`; nil when
    /// `inet_ntop` refuses it.
    static func of<Address>(family: Int32, _ address: Address) -> String? {
        var address = address
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(family, &address, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
