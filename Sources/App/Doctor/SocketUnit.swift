import Foundation

/// systemd's `pushgate.socket`, when one is installed and listens on the configured socket:
/// then systemd makes the socket file, its mode and group come from the unit's `SocketMode=`
/// and `SocketGroup=` (not `PUSHGATE_SOCKET_MODE` and `PUSHGATE_SOCKET_GROUP`), and the file
/// is there whether or not `serve` runs. doctor's advice follows the one that makes the file.
struct SocketUnit: Equatable {
    /// Where systemd looks for it, in its order of precedence: an administrator's (`/etc`,
    /// where `scripts/install` puts it), the runtime's, the package's (`/lib`, and `/usr/lib`
    /// on merged-/usr systems).
    static let installedPaths = [
        "/etc/systemd/system/pushgate.socket", "/run/systemd/system/pushgate.socket",
        "/lib/systemd/system/pushgate.socket", "/usr/lib/systemd/system/pushgate.socket",
    ]

    /// The unit file systemd uses.
    let path: String

    /// The unit systemd would use (the first of `paths` that exists) when its `ListenStream=`,
    /// with the drop-ins (`<unit>.d/*.conf` beside any of `paths`, as `systemctl edit` writes
    /// them), is `socket`; nil when it is not, or none is installed, and serve makes the socket.
    static func holding(_ socket: String, among paths: [String] = installedPaths) -> SocketUnit? {
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }),
            let unit = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        // Drop-ins by name across the folders, in name order; a name met earlier (a folder
        // of higher precedence) hides the same name later.
        var dropIns: [String: String] = [:]
        for folder in paths.map({ $0 + ".d" }) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            for name in names where name.hasSuffix(".conf") && dropIns[name] == nil {
                dropIns[name] = folder + "/" + name
            }
        }
        let texts = [unit] + dropIns.keys.sorted().compactMap { try? String(contentsOfFile: dropIns[$0]!, encoding: .utf8) }
        let wanted = URL(fileURLWithPath: socket).standardizedFileURL.path
        return listenStreams(in: texts).contains(wanted) ? SocketUnit(path: path) : nil
    }

    /// The unit's `ListenStream=` paths, files and drop-ins read in order: an empty
    /// assignment clears the list before it, as systemd reads it.
    static func listenStreams(in texts: [String]) -> [String] {
        var streams: [String] = []
        for text in texts {
            for line in text.split(whereSeparator: \.isNewline) {
                guard let equals = line.firstIndex(of: "="),
                    line[..<equals].trimmingCharacters(in: .whitespaces) == "ListenStream"
                else { continue }
                let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if value.isEmpty {
                    streams = []
                } else if value.hasPrefix("/") {
                    streams.append(URL(fileURLWithPath: value).standardizedFileURL.path)
                }
            }
        }
        return streams
    }
}
