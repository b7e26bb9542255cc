import CCurl

/// One libcurl easy handle with the error buffer libcurl writes its messages to, carrying one
/// transfer at a time. Used by the engine thread only, which keeps a few idle ones to reuse
/// (`MultiLoop`): making and freeing a handle per push cost more than reusing one
/// (docs/performance.md).
///
/// The options that are the same for every transfer are set once, when the handle is made;
/// `prepare` sets, or clears, every one that a transfer may change. Never `curl_easy_reset`:
/// libcurl 7.88 refuses to resize the receive buffer of a handle that has one, and a reset
/// would put its size back to 16 KiB above a smaller buffer. The smallest buffers are what
/// lets a thousand transfers in flight per engine thread stay small (docs/performance.md has
/// the measurements).
final class EasyHandle {
    let pointer: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// libcurl's smallest upload buffer (`CURLOPT_UPLOAD_BUFFERSIZE`; its default is 64 KiB).
    /// A push's body is a few KiB at most; a larger one is sent in several reads.
    static let uploadBufferBytes = 16 * 1024
    /// libcurl's smallest receive buffer (`CURLOPT_BUFFERSIZE`; its default is 16 KiB). The
    /// answers are a status, a few headers and at most a short JSON error.
    static let receiveBufferBytes = 1024

    init(settings: EasySettings) throws(TransportError) {
        guard let pointer = curl_easy_init() else { throw .connectionLost("curl_easy_init failed") }
        self.pointer = pointer
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        var options = OptionSetter(handle: pointer)
        options.pointer(CURLOPT_ERRORBUFFER, UnsafeMutableRawPointer(errorBuffer))
        options.string(CURLOPT_PROTOCOLS_STR, "https")
        options.long(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Wait for an existing connection to show it multiplexes instead of opening another.
        options.long(CURLOPT_PIPEWAIT, 1)
        // Threads: libcurl must not use signals (SIGALRM) for its time-outs.
        options.long(CURLOPT_NOSIGNAL, 1)
        // libcurl's default buffers (64 KiB to send a body, 16 KiB to receive) were most of
        // serve's memory in a fan-out, a thousand transfers in flight per engine thread.
        options.long(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferBytes)
        options.long(CURLOPT_BUFFERSIZE, Self.receiveBufferBytes)
        options.long(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds)
        options.long(CURLOPT_SSL_VERIFYPEER, 1)
        options.long(CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = settings.caFile { options.string(CURLOPT_CAINFO, caFile) }
        if let caPath = settings.caPath { options.string(CURLOPT_CAPATH, caPath) }
        options.writeCallback(CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        options.writeCallback(CURLOPT_WRITEFUNCTION, curlWriteCallback)
        // No proxy, whatever the environment says: libcurl would otherwise take https_proxy or
        // ALL_PROXY from it, and a proxy resolves and connects where no address check sees it
        // (docs/security.md, "Outgoing connections"). "" is libcurl's "no proxy at all".
        options.string(CURLOPT_PROXY, "")
        try options.check()
    }

    deinit {
        curl_easy_cleanup(pointer)
        errorBuffer.deallocate()
    }

    /// libcurl's message for the last failure on this handle ("" when it wrote none).
    var errorMessage: String { String(cString: errorBuffer) }

    var responseCode: Int {
        var code = 0
        _ = pushgate_curl_easy_getinfo_long(pointer, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Sets every option of `transfer`'s own, and clears those a transfer before it on this
    /// handle set and it does not. `context` is the transfer's unretained opaque pointer,
    /// which the callbacks get back (the engine keeps the transfer alive meanwhile).
    func prepare(
        for transfer: CurlTransfer, context: UnsafeMutableRawPointer, settings: EasySettings
    ) throws(TransportError) {
        let request = transfer.request
        var options = OptionSetter(handle: pointer)
        options.string(CURLOPT_URL, request.url)
        options.long(
            CURLOPT_TIMEOUT_MS,
            request.timeoutSeconds.map { Int($0 * 1000) } ?? settings.requestTimeoutMilliseconds)
        setMethodAndBody(request, &options)
        transfer.headerList = Self.headerList(request.headers)
        options.slist(CURLOPT_HTTPHEADER, transfer.headerList)
        options.pointer(CURLOPT_HEADERDATA, context)
        options.pointer(CURLOPT_WRITEDATA, context)
        setClientIdentity(request.clientIdentity, &options)
        // Without a check, no callback: the transfer before this one on the handle may have had one.
        if transfer.isOpener || request.addressCheck != nil {
            options.prereqCallback(curlPrereqCallback)
            options.pointer(CURLOPT_PREREQDATA, context)
        } else {
            options.prereqCallback(nil)
        }
        if request.addressCheck != nil {
            options.openSocketCallback(curlOpenSocketCallback)
            options.pointer(CURLOPT_OPENSOCKETDATA, context)
        } else {
            options.openSocketCallback(nil)
        }
        try options.check()
    }

    private func setMethodAndBody(_ request: UpstreamRequest, _ options: inout OptionSetter) {
        // POST and a GET without a body are libcurl's own methods; nil clears the method a
        // transfer before this one named.
        switch request.method {
        case "GET" where request.body.isEmpty:
            options.string(CURLOPT_CUSTOMREQUEST, nil)
            options.long(CURLOPT_HTTPGET, 1)
        default:
            options.string(CURLOPT_CUSTOMREQUEST, request.method == "POST" ? nil : request.method)
            // COPYPOSTFIELDS copies the body now: the request's array need not outlive this call.
            options.offset(CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            if request.body.isEmpty {
                options.string(CURLOPT_COPYPOSTFIELDS, "")
            } else {
                request.body.withUnsafeBytes { bytes in
                    options.pointer(CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
        }
    }

    /// What a client identity sets; NULL puts each back to libcurl's default (no identity).
    private static let identityOptions = [
        CURLOPT_SSLCERTTYPE, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEYTYPE, CURLOPT_SSLKEY_BLOB, CURLOPT_KEYPASSWD,
    ]

    /// libcurl compares the certificate blob when it looks for a connection to reuse, so requests
    /// with different identities never share one. A transfer before this one may have set
    /// another identity, or one where this transfer has none: it is cleared first.
    private func setClientIdentity(_ identity: ClientIdentity?, _ options: inout OptionSetter) {
        for option in Self.identityOptions { options.pointer(option, nil) }
        switch identity {
        case .pem(let certificate, let privateKey):
            options.string(CURLOPT_SSLCERTTYPE, "PEM")
            options.blob(CURLOPT_SSLCERT_BLOB, certificate)
            options.string(CURLOPT_SSLKEYTYPE, "PEM")
            options.blob(CURLOPT_SSLKEY_BLOB, privateKey)
        case .pkcs12(let bundle, let password):
            options.string(CURLOPT_SSLCERTTYPE, "P12")
            options.blob(CURLOPT_SSLCERT_BLOB, bundle)
            options.string(CURLOPT_KEYPASSWD, password)
        case nil:
            break
        }
    }

    private static func headerList(_ headers: [HTTPHeader]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        // libcurl would otherwise send `Content-Type: application/x-www-form-urlencoded` for a
        // POST body; the clients name their own type.
        if !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            list = curl_slist_append(list, "Content-Type:")
        }
        for header in headers {
            list = curl_slist_append(list, "\(header.name): \(header.value)")
        }
        return list
    }
}

/// The per-engine constants every transfer's options are made of.
struct EasySettings: Sendable {
    var connectTimeoutMilliseconds: Int
    var requestTimeoutMilliseconds: Int
    var caFile: String?
    var caPath: String?
}

/// Calls the typed `curl_easy_setopt` shims and remembers the first failure, so that setting a
/// handle reads as a list of options rather than a list of checks.
private struct OptionSetter {
    let handle: UnsafeMutableRawPointer
    var failure: (option: UInt32, code: CURLcode)?

    init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    private mutating func check(_ option: CURLoption, _ code: CURLcode) {
        if code != CURLE_OK, failure == nil { failure = (option.rawValue, code) }
    }

    /// Throws the first option that failed, if one did.
    func check() throws(TransportError) {
        guard let failure else { return }
        throw .invalidRequest("curl_easy_setopt(\(failure.option)): \(String(cString: curl_easy_strerror(failure.code)))")
    }

    mutating func long(_ option: CURLoption, _ value: Int) {
        check(option, pushgate_curl_easy_setopt_long(handle, option, value))
    }

    mutating func offset(_ option: CURLoption, _ value: curl_off_t) {
        check(option, pushgate_curl_easy_setopt_off_t(handle, option, value))
    }

    mutating func string(_ option: CURLoption, _ value: String?) {
        check(option, pushgate_curl_easy_setopt_string(handle, option, value))
    }

    mutating func pointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
        check(option, pushgate_curl_easy_setopt_pointer(handle, option, value))
    }

    mutating func slist(_ option: CURLoption, _ value: UnsafeMutablePointer<curl_slist>?) {
        check(option, pushgate_curl_easy_setopt_slist(handle, option, value))
    }

    mutating func writeCallback(_ option: CURLoption, _ callback: curl_write_callback) {
        check(option, pushgate_curl_easy_setopt_write_callback(handle, option, callback))
    }

    mutating func prereqCallback(_ callback: curl_prereq_callback?) {
        check(CURLOPT_PREREQFUNCTION, pushgate_curl_easy_setopt_prereq_callback(handle, callback))
    }

    mutating func openSocketCallback(_ callback: curl_opensocket_callback?) {
        check(CURLOPT_OPENSOCKETFUNCTION, pushgate_curl_easy_setopt_opensocket_callback(handle, callback))
    }

    /// CURL_BLOB_COPY: libcurl keeps its own copy, so `bytes` need not outlive the call.
    mutating func blob(_ option: CURLoption, _ bytes: [UInt8]) {
        let code = bytes.withUnsafeBytes { buffer -> CURLcode in
            guard let base = buffer.baseAddress else { return CURLE_BAD_FUNCTION_ARGUMENT }
            var blob = curl_blob(
                data: UnsafeMutableRawPointer(mutating: base), len: buffer.count, flags: pushgate_curl_blob_copy())
            return pushgate_curl_easy_setopt_blob(handle, option, &blob)
        }
        check(option, code)
    }
}
