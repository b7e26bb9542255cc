import Foundation

/// How many FastCGI connections this process holds open (nginx's kept ones included), read
/// from /proc when asked (a scrape of `/metrics`) rather than counted on every accept and
/// close, most of which happen inside libfcgi. A connection is one of this process's socket
/// descriptors that the kernel lists as connected on the listening address: on the Unix
/// socket's path (`/proc/net/unix`, state 03), or on the TCP port (`/proc/net/tcp[6]`,
/// ESTABLISHED). Nil where /proc cannot be read.
public enum OpenConnections {
    public static func count(for configuration: FastCGIConfiguration) -> Int? {
        guard let inodes = ownSocketInodes() else { return nil }
        let tcpPort = configuration.activatedSocket.map { $0.port } ?? configuration.tcpAddress?.port
        if configuration.listensOnTCP {
            guard let tcpPort else { return nil }
            let port = String(format: "%04X", tcpPort)
            var count = 0
            for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
                guard let text = Self.readWhole(table) else { continue }
                for line in text.split(separator: "\n").dropFirst() {
                    let fields = line.split(separator: " ")
                    // sl local_address rem_address st … inode (the tenth field).
                    guard fields.count > 9, fields[3] == "01", fields[1].hasSuffix(":" + port),
                        let inode = UInt64(fields[9]), inodes.contains(inode)
                    else { continue }
                    count += 1
                }
            }
            return count
        }
        let path = configuration.activatedSocket?.address ?? configuration.socketPath
        guard let text = Self.readWhole("/proc/net/unix") else { return nil }
        var count = 0
        for line in text.split(separator: "\n").dropFirst() {
            // Num RefCount Protocol Flags Type St Inode Path: accepted connections carry the
            // listener's path; the listener itself is state 01.
            let fields = line.split(separator: " ", maxSplits: 7)
            guard fields.count == 8, fields[5] == "03", fields[7] == path,
                let inode = UInt64(fields[6]), inodes.contains(inode)
            else { continue }
            count += 1
        }
        return count
    }

    /// A /proc table read to its end. `String(contentsOfFile:)` stops after the first read of
    /// about 4 KB (a /proc file reports size 0), and a host's socket tables are longer than
    /// that: the connections past it went uncounted (0 on a busy host).
    static func readWhole(_ path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        return String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The inodes of this process's sockets (`/proc/self/fd/N` → `socket:[INODE]`).
    private static func ownSocketInodes() -> Set<UInt64>? {
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return nil
        }
        var inodes = Set<UInt64>()
        for descriptor in descriptors {
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { continue }
            if let inode = UInt64(target.dropFirst(8).dropLast()) { inodes.insert(inode) }
        }
        return inodes
    }
}
