import Foundation

/// systemd's `pushgate.socket`, when one is installed and listens on the configured socket:
/// then systemd makes the socket file, its mode and group come from the unit's `SocketMode=`
/// and `SocketGroup=` (not `PUSHGATE_SOCKET_MODE` and `PUSHGATE_SOCKET_GROUP`), and the file
/// is there whether or not `serve` runs. doctor's advice follows the one that makes the file.
struct SocketUnit: Equatable {
    /// Where the package (`/lib`), `scripts/install` (`/etc`) and merged-/usr systems put it.
    static let installedPaths = [
        "/etc/systemd/system/pushgate.socket", "/lib/systemd/system/pushgate.socket", "/usr/lib/systemd/system/pushgate.socket",
    ]

    /// The unit file found.
    let path: String

    /// The first installed unit whose `ListenStream=` (or a drop-in's, in `<unit>.d/*.conf`)
    /// is `socket`; nil when none is, and serve makes the socket itself.
    static func holding(_ socket: String, among paths: [String] = installedPaths) -> SocketUnit? {
        let wanted = URL(fileURLWithPath: socket).standardizedFileURL.path
        for path in paths {
            guard let unit = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            var texts = [unit]
            let dropIns = path + ".d"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dropIns)) ?? []
            for name in names.sorted() where name.hasSuffix(".conf") {
                if let text = try? String(contentsOfFile: dropIns + "/" + name, encoding: .utf8) { texts.append(text) }
            }
            if listenStreams(in: texts).contains(wanted) { return SocketUnit(path: path) }
        }
        return nil
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
