import CCurl

/// Sorts libcurl's result codes into the few kinds of failure delivery acts on differently.
enum CurlErrorMapping {
    static func transportError(_ code: CURLcode, message: String) -> TransportError {
        let text = message.isEmpty ? String(cString: curl_easy_strerror(code)) : message
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout(text)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            return .tls(text)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT, CURLE_UNKNOWN_OPTION,
            CURLE_NOT_BUILT_IN, CURLE_BAD_CONTENT_ENCODING:
            return .invalidRequest(text)
        default:
            // Refused, reset, resolve failures, GOAWAY, HTTP/2 stream errors, a truncated reply:
            // the request may well succeed on a new connection.
            return .connectionLost(text)
        }
    }
}
