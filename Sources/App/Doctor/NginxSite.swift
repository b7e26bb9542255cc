import Foundation

/// Which nginx configuration doctor checks, and as which worker user: the one named on the
/// command line; else, in a checkout where `scripts/run` serves, the configuration it rendered
/// beside the socket (its `nginx/` folder), with the worker user that configuration runs;
/// else the packaged site include and Debian's `www-data`.
struct NginxSite: Equatable {
    /// The site include with pushgate's server and upstream.
    let include: String
    /// nginx's worker user, who must reach the socket.
    let workerUser: String
    /// How doctor came to it, for its finding.
    let origin: String

    static let packagedInclude = "/etc/nginx/conf.d/pushgate.conf"
    static let packagedWorker = "www-data"

    static func locate(include: String?, workerUser: String?, socket: String) -> NginxSite {
        if let include {
            return NginxSite(include: include, workerUser: workerUser ?? packagedWorker, origin: "--nginx-conf")
        }
        let rendered = URL(fileURLWithPath: socket).standardizedFileURL.deletingLastPathComponent()
            .appendingPathComponent("nginx")
        let renderedInclude = rendered.appendingPathComponent("pushgate.conf").path
        let main = rendered.appendingPathComponent("nginx.conf").path
        if let text = try? String(contentsOfFile: main, encoding: .utf8), text.hasPrefix("# Rendered by scripts/render-nginx"),
            FileManager.default.fileExists(atPath: renderedInclude)
        {
            return NginxSite(
                include: renderedInclude,
                workerUser: workerUser ?? Self.workerUser(mainConfiguration: text, owner: Self.owner(of: main)),
                origin: "scripts/run's, beside the socket")
        }
        return NginxSite(include: packagedInclude, workerUser: workerUser ?? packagedWorker, origin: "the packaged one")
    }

    /// Who nginx's workers run as under a rendered `nginx.conf`: its `user` line; without one,
    /// the user who started nginx (who rendered the file), or `nobody` when that was root.
    static func workerUser(mainConfiguration text: String, owner: String?) -> String {
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("user "), line.hasSuffix(";") else { continue }
            let name = line.dropFirst("user ".count).dropLast().split(separator: " ").first
            if let name { return String(name) }
        }
        guard let owner, owner != "root" else { return "nobody" }
        return owner
    }

    private static func owner(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UserIdentity.name(of: info.st_uid)
    }
}
