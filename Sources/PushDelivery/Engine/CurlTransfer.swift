import CCurl

/// One request on its way through the engine: what to send, where the reply accumulates, and
/// whom to tell. Created on the submitting thread, then touched only by the engine thread
/// (libcurl's callbacks run there too), so it needs no lock; the queue's lock hands it over.
final class CurlTransfer: @unchecked Sendable {
    let request: UpstreamRequest
    let completion: @Sendable (UpstreamOutcome) -> Void
    /// Computed on the submitting thread, to keep the engine thread's work small.
    let connectionKey: ConnectionKey
    /// The gate counts this transfer as one of its key's (see `ConnectionGate`).
    var admitted = false
    /// This transfer opens its key's connection.
    var isOpener = false
    /// Set by CURLOPT_PREREQFUNCTION: the connection is up, TLS and ALPN done.
    var connectionReady = false
    /// Set when the request's `addressCheck` refused an address: why. A later address of the same
    /// name may still connect (happy eyeballs); the refusal is the outcome only if none did.
    var addressRefusal: String?

    var handle: EasyHandle?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var responseHeaders: [HTTPHeader] = []
    var responseBody: [UInt8] = []
    /// Set when the reply outgrew `maximumResponseBytes` and the write callback stopped it.
    var responseTooLarge = false

    /// APNs and FCM replies are tiny JSON documents; anything larger is not one of theirs.
    static let maximumResponseBytes = 1 << 20

    init(request: UpstreamRequest, completion: @escaping @Sendable (UpstreamOutcome) -> Void) {
        self.request = request
        self.completion = completion
        connectionKey = ConnectionKey(request)
    }

    deinit {
        curl_slist_free_all(headerList)
    }

    /// One header line as libcurl hands it over ("name: value\r\n", or a status line, which
    /// starts a new header block: after an informational reply only the last block counts).
    func receiveHeaderLine(_ line: UnsafeBufferPointer<UInt8>) {
        var end = line.count
        while end > 0, line[end - 1] == UInt8(ascii: "\r") || line[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        guard end > 0 else { return }
        let text = UnsafeBufferPointer(rebasing: line[0..<end])
        if text.starts(with: "HTTP/".utf8) {
            responseHeaders.removeAll(keepingCapacity: true)
            return
        }
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = String(decoding: text[0..<colon], as: UTF8.self).lowercased()
        var valueStart = colon + 1
        while valueStart < end, text[valueStart] == UInt8(ascii: " ") || text[valueStart] == UInt8(ascii: "\t") {
            valueStart += 1
        }
        responseHeaders.append(HTTPHeader(name, String(decoding: text[valueStart..<end], as: UTF8.self)))
    }

    /// Returns false to make libcurl abort the transfer.
    func receiveBody(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard responseBody.count + bytes.count <= Self.maximumResponseBytes else {
            responseTooLarge = true
            return false
        }
        responseBody.append(contentsOf: bytes)
        return true
    }
}

/// libcurl's CURLOPT_HEADERFUNCTION: `context` is the unretained `CurlTransfer` (the engine holds
/// it in its in-flight table until the transfer is done).
func curlHeaderCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    data.withMemoryRebound(to: UInt8.self, capacity: length) {
        transfer.receiveHeaderLine(UnsafeBufferPointer(start: $0, count: length))
    }
    return length
}

/// libcurl's CURLOPT_WRITEFUNCTION; returning less than it was given aborts the transfer.
func curlWriteCallback(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let context else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let accepted = data.withMemoryRebound(to: UInt8.self, capacity: length) {
        transfer.receiveBody(UnsafeBufferPointer(start: $0, count: length))
    }
    return accepted ? length : 0
}

/// libcurl's CURLOPT_PREREQFUNCTION, set on connection openers and on requests with an address
/// check; libcurl calls it once the connection is established or reused, before the request
/// is sent. An opener's connection is ready, so the transfers waiting for it can be let
/// through. A new connection's address was judged before it was opened
/// (`curlOpenSocketCallback`); this judges again a connection libcurl reuses, which a request
/// without a check may have opened: a refused address aborts the transfer
/// (CURL_PREREQFUNC_ABORT) with nothing sent, and its waiters fail with it.
func curlPrereqCallback(
    _ context: UnsafeMutableRawPointer?, _ primaryIP: UnsafeMutablePointer<CChar>?,
    _ localIP: UnsafeMutablePointer<CChar>?, _ primaryPort: Int32, _ localPort: Int32
) -> Int32 {
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    if let check = transfer.request.addressCheck {
        let address = primaryIP.map { String(cString: $0) } ?? ""
        if let refusal = check.refusal(address, Int(primaryPort)) {
            transfer.addressRefusal = refusal
            return 1
        }
    }
    transfer.connectionReady = true
    return 0
}
