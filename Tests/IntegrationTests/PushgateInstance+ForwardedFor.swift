import Foundation

extension PushgateInstance {
    /// An `adjustNginx` for tests that need callers from addresses other than loopback (which
    /// the template never rate-limits): nginx takes the client address from `X-Forwarded-For`
    /// when the request comes from 127.0.0.1, as behind a proxy on the same host
    /// (ngx_http_realip_module). Only the test's rendering trusts the header; the template
    /// does not.
    static func trustForwardedFor(_ prefix: URL) throws {
        let site = prefix.appendingPathComponent("pushgate.conf")
        let text = try String(contentsOf: site, encoding: .utf8)
        let marker = "    server_tokens off;\n"
        guard text.contains(marker) else { throw Failure("the rendered site has no `server_tokens off;` line") }
        let trusting = text.replacingOccurrences(
            of: marker, with: marker + "    set_real_ip_from 127.0.0.1;\n    real_ip_header X-Forwarded-For;\n")
        try trusting.write(to: site, atomically: true, encoding: .utf8)
    }

    /// nginx's access log so far.
    var nginxAccessLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("nginx/logs/access.log"), encoding: .utf8)) ?? ""
    }

    /// nginx's main error log so far.
    var nginxErrorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("nginx/logs/error.log"), encoding: .utf8)) ?? ""
    }
}
