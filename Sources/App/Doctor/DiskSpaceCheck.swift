import Foundation

/// Room on the database file's file system. The file needs free space to grow its WAL (serve
/// lets it reach ~70 MB) and, for a VACUUM or a backup next to it, as much again as the
/// database.
struct DiskSpaceCheck {
    let databasePath: String

    /// Never less than this free, whatever the database's size.
    static let floorBytes: UInt64 = 256 << 20

    func run() -> [DoctorFinding] {
        let directory = URL(fileURLWithPath: databasePath).deletingLastPathComponent().path
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else {
            return [.problem("disk", "cannot read the free space of \(directory): \(String(cString: strerror(errno)))")]
        }
        // f_bavail: what an unprivileged user (the service's) may use, not root's reserve.
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        let size = ["", "-wal", "-shm"].reduce(UInt64(0)) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: databasePath + suffix)
            return total + ((attributes?[.size] as? NSNumber)?.uint64Value ?? 0)
        }
        return [Self.verdict(directory: directory, freeBytes: free, databaseBytes: size)]
    }

    static func verdict(directory: String, freeBytes: UInt64, databaseBytes: UInt64) -> DoctorFinding {
        let needed = max(floorBytes, databaseBytes)
        let text = "\(megabytes(freeBytes)) free in \(directory), database \(megabytes(databaseBytes))"
        if freeBytes < needed {
            return .problem("disk", "\(text); needs at least \(megabytes(needed)): free some space or move PUSHGATE_DB")
        }
        return .ok("disk", text)
    }

    static func megabytes(_ bytes: UInt64) -> String {
        "\(bytes / (1 << 20)) MiB"
    }
}
