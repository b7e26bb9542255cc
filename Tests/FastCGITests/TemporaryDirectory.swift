import Foundation

/// A fresh directory under /tmp, mode 0755 so that nginx's workers (nobody, when tests run as
/// root) can pass through to the socket. Short, because a socket path is limited to 107 bytes.
final class TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = URL(fileURLWithPath: "/tmp/pgfcgi-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o755)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
