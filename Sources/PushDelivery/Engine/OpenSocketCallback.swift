import CCurl

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl's CURLOPT_OPENSOCKETFUNCTION, set on requests with an address check: libcurl calls
/// it with each address it is about to connect to, after DNS and before a socket exists. A
/// refused address gets no socket (CURL_SOCKET_BAD), so not a single packet goes to it; libcurl
/// tries the name's next address, if any, and otherwise fails the transfer, whose outcome is
/// the refusal. `context` is the unretained `CurlTransfer`.
func curlOpenSocketCallback(
    _ context: UnsafeMutableRawPointer?, _ purpose: curlsocktype, _ address: UnsafeMutablePointer<curl_sockaddr>?
) -> curl_socket_t {
    guard let context, let address else { return CURL_SOCKET_BAD }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    if let check = transfer.request.addressCheck {
        guard let (text, port) = SocketAddressText.read(address) else {
            transfer.addressRefusal = "an address of family \(address.pointee.family) (not sent)"
            return CURL_SOCKET_BAD
        }
        if let refusal = check.refusal(text, port) {
            transfer.addressRefusal = refusal
            return CURL_SOCKET_BAD
        }
    }
    // What libcurl's own opener does: its other socket options are set once this returns.
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}

/// The address and port of a `curl_sockaddr`, as text (`inet_ntop`) and number.
enum SocketAddressText {
    static func read(_ address: UnsafeMutablePointer<curl_sockaddr>) -> (String, Int)? {
        let family = address.pointee.family
        return withUnsafeMutablePointer(to: &address.pointee.addr) { socketAddress in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch family {
            case AF_INET:
                return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    guard inet_ntop(AF_INET, &v4.pointee.sin_addr, &text, socklen_t(text.count)) != nil else {
                        return nil
                    }
                    return (String(cString: text), Int(UInt16(bigEndian: v4.pointee.sin_port)))
                }
            case AF_INET6:
                // curl_sockaddr's addr is a sockaddr_storage-sized union in libcurl; addrlen says
                // how much of it is this address.
                guard address.pointee.addrlen >= MemoryLayout<sockaddr_in6>.size else { return nil }
                return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    guard inet_ntop(AF_INET6, &v6.pointee.sin6_addr, &text, socklen_t(text.count)) != nil else {
                        return nil
                    }
                    return (String(cString: text), Int(UInt16(bigEndian: v6.pointee.sin6_port)))
                }
            default:
                return nil
            }
        }
    }
}
