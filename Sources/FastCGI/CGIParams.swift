import CFastCGI
import Glibc
import PushCore

/// The CGI parameters (`NAME=value` strings) libfcgi received for one request, kept as what a
/// `Request` is made of: the few CGI variables pushgate reads, and the `HTTP_*` ones already as
/// header names. The other variables nginx sends (`SERVER_SOFTWARE`, `DOCUMENT_ROOT`, …) are
/// skipped without being copied: every request pays for this step, and a dictionary of all of
/// them and then a second one of the headers was a measurable share of a `/healthz` request.
struct CGIParams: Equatable {
    var requestMethod: String?
    var requestURI: String?
    var documentURI: String?
    var scriptName: String?
    var pathInfo: String?
    var queryString: String?
    var contentType: String?
    var contentLength: String?
    var remoteAddress: String?
    var requestID: String?
    /// `HTTP_USER_AGENT` → `user-agent` (see `headerName`), repeats joined (see `add`).
    /// Room for a client's usual headers at once, not a resize for each of the first few.
    var headers = HTTPHeaders(minimumCapacity: 8)

    /// The variables read, by name; an index into the stored properties above.
    private enum Variable: CaseIterable {
        case requestMethod, requestURI, documentURI, scriptName, pathInfo, queryString
        case contentType, contentLength, remoteAddress, requestID

        var name: StaticString {
            switch self {
            case .requestMethod: "REQUEST_METHOD"
            case .requestURI: "REQUEST_URI"
            case .documentURI: "DOCUMENT_URI"
            case .scriptName: "SCRIPT_NAME"
            case .pathInfo: "PATH_INFO"
            case .queryString: "QUERY_STRING"
            case .contentType: "CONTENT_TYPE"
            case .contentLength: "CONTENT_LENGTH"
            case .remoteAddress: "REMOTE_ADDR"
            case .requestID: "REQUEST_ID"
            }
        }

        /// Told apart by length and first byte: at most two names share both, so each of a
        /// request's params costs a comparison or two, not a scan of every name.
        static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> Variable? {
            guard let first = bytes.first else { return nil }
            let candidates: (Variable, Variable?)
            switch (bytes.count, first) {
            case (9, UInt8(ascii: "P")): candidates = (.pathInfo, nil)
            case (10, UInt8(ascii: "R")): candidates = (.requestID, nil)
            case (11, UInt8(ascii: "R")): candidates = (.requestURI, .remoteAddress)
            case (11, UInt8(ascii: "S")): candidates = (.scriptName, nil)
            case (12, UInt8(ascii: "C")): candidates = (.contentType, nil)
            case (12, UInt8(ascii: "D")): candidates = (.documentURI, nil)
            case (12, UInt8(ascii: "Q")): candidates = (.queryString, nil)
            case (14, UInt8(ascii: "R")): candidates = (.requestMethod, nil)
            case (14, UInt8(ascii: "C")): candidates = (.contentLength, nil)
            default: return nil
            }
            if candidates.0.matches(bytes) { return candidates.0 }
            if let second = candidates.1, second.matches(bytes) { return second }
            return nil
        }

        private func matches(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let name = self.name
            return name.utf8CodeUnitCount == bytes.count && memcmp(name.utf8Start, bytes.baseAddress!, bytes.count) == 0
        }
    }

    init() {}

    /// From `(name, value)` pairs in the order the front server sent them (tests).
    init(pairs: [(String, String)]) {
        for (name, value) in pairs {
            var name = name
            var value = value
            name.withUTF8 { nameBytes in value.withUTF8 { add(name: nameBytes, value: $0) } }
        }
    }

    /// Reads libfcgi's NULL-terminated `envp` array. The strings die at `FCGX_Finish_r`, so
    /// what is kept is copied here.
    static func read(_ envp: FCGX_ParamArray?) -> CGIParams {
        var params = CGIParams()
        guard var cursor = envp else { return params }
        while let entry = cursor.pointee {
            let length = strlen(entry)
            entry.withMemoryRebound(to: UInt8.self, capacity: length) { start in
                let bytes = UnsafeBufferPointer(start: start, count: length)
                let equals = bytes.firstIndex(of: UInt8(ascii: "=")) ?? length
                let value =
                    equals < length
                    ? UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]) : .init(start: nil, count: 0)
                params.add(name: UnsafeBufferPointer(rebasing: bytes[..<equals]), value: value)
            }
            cursor += 1
        }
        return params
    }

    private static let httpPrefix: StaticString = "HTTP_"

    /// nginx before 1.23 sends a header that occurs twice as two `HTTP_*` params: they are
    /// joined the way HTTP does (`, `, and `; ` for cookies). For anything else the first one
    /// wins, as with `FCGX_GetParam`.
    private mutating func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if name.count > 5, memcmp(name.baseAddress!, Self.httpPrefix.utf8Start, 5) == 0 {
            let header = Self.headerName(cgiName: UnsafeBufferPointer(rebasing: name[5...]))
            let text = value.isEmpty ? "" : String(decoding: value, as: UTF8.self)
            headers.add(header, text, joiningRepeatsWith: header == "cookie" ? "; " : ", ")
            return
        }
        guard let variable = Variable.named(name) else { return }
        let text = value.isEmpty ? "" : String(decoding: value, as: UTF8.self)
        switch variable {
        case .requestMethod: requestMethod = requestMethod ?? text
        case .requestURI: requestURI = requestURI ?? text
        case .documentURI: documentURI = documentURI ?? text
        case .scriptName: scriptName = scriptName ?? text
        case .pathInfo: pathInfo = pathInfo ?? text
        case .queryString: queryString = queryString ?? text
        case .contentType: contentType = contentType ?? text
        case .contentLength: contentLength = contentLength ?? text
        case .remoteAddress: remoteAddress = remoteAddress ?? text
        case .requestID: requestID = requestID ?? text
        }
    }

    /// The headers nearly every request carries, their names made once rather than for each
    /// request (docs/performance.md, "sixth pass").
    private static let commonHeaders: [(cgi: StaticString, name: String)] = [
        ("HOST", "host"), ("USER_AGENT", "user-agent"), ("ACCEPT", "accept"), ("ACCEPT_ENCODING", "accept-encoding"),
        ("AUTHORIZATION", "authorization"), ("CONTENT_TYPE", "content-type"), ("CONNECTION", "connection"),
    ]

    /// nginx drops client headers with `_` in their names (`underscores_in_headers off`), so
    /// every `_` in a param name stood for a `-`.
    static func headerName(cgiName: UnsafeBufferPointer<UInt8>) -> String {
        for common in commonHeaders where common.cgi.utf8CodeUnitCount == cgiName.count {
            if memcmp(common.cgi.utf8Start, cgiName.baseAddress!, cgiName.count) == 0 { return common.name }
        }
        return String(unsafeUninitializedCapacity: cgiName.count) { buffer in
            for (index, byte) in cgiName.enumerated() {
                switch byte {
                case UInt8(ascii: "_"): buffer[index] = UInt8(ascii: "-")
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): buffer[index] = byte + 32
                default: buffer[index] = byte
                }
            }
            return cgiName.count
        }
    }
}
