import CCurl

/// libcurl's process-wide set-up, which must happen once before any handle exists.
enum CurlGlobal {
    /// A `static let` runs its initialiser once, thread-safely, on first use.
    private static let initialized: Bool = curl_global_init(pushgate_curl_global_default()) == CURLE_OK

    static func ensureInitialized() {
        precondition(initialized, "curl_global_init failed")
    }

    /// libcurl's built-in CA directory (`--with-ca-path`, /etc/ssl/certs on Debian), nil if none.
    static func defaultCAPath() -> String? {
        ensureInitialized()
        guard let handle = curl_easy_init() else { return nil }
        defer { curl_easy_cleanup(handle) }
        var path: UnsafePointer<CChar>?
        guard pushgate_curl_easy_getinfo_string(handle, CURLINFO_CAPATH, &path) == CURLE_OK, let path else {
            return nil
        }
        return String(cString: path)
    }
}
