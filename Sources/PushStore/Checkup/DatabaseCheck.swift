import Foundation

/// The database opens, every migration this version knows is applied, and it takes a write
/// lock. It never creates the file nor migrates: a doctor that repaired silently would hide
/// the cause.
public struct DatabaseCheck {
    public let path: String
    /// The schema migrations built into this binary, or why they are unusable.
    public let migrations: Result<[Migration], any Error>
    public let busyTimeoutMilliseconds: Int

    public init(path: String, migrations: Result<[Migration], any Error>, busyTimeoutMilliseconds: Int) {
        self.path = path
        self.migrations = migrations
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    }

    public struct Outcome {
        public var findings: [StoreFinding]
        /// Whether the schema is this version's: only then are the apps read.
        public var isUsable: Bool
        /// The newest time the database records (a migration's `applied_at`), for the clock.
        public var latestRecordedTime: Int64?
    }

    public func run() -> Outcome {
        guard FileManager.default.fileExists(atPath: path) else {
            return Outcome(
                findings: [.problem("database", "\(path) does not exist: run `pushgate migrate` (serve also creates it at start)")],
                isUsable: false)
        }
        var findings = ownershipFindings() + modeFindings()
        let database: Database
        do {
            database = try Database(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        } catch {
            findings.append(.problem("database", "\(path) does not open: \(error)"))
            return Outcome(findings: findings, isUsable: false)
        }
        let applied: [AppliedMigration]
        do {
            applied = try Migrator.applied(database: database)
        } catch {
            findings.append(.problem("database", "\(path) is not a readable pushgate database: \(error)"))
            return Outcome(findings: findings, isUsable: false)
        }
        let latest = applied.map(\.appliedAt).max()
        var isUsable = false
        switch migrations {
        case .failure(let error):
            findings.append(.problem("migrations", "\(error)"))
        case .success(let known):
            do {
                let pending = try Migrator.pending(database: database, migrations: known)
                if applied.isEmpty {
                    findings.append(.problem("database", "\(path) is not migrated (no schema): run `pushgate migrate`"))
                } else if !pending.isEmpty {
                    let names = pending.map(\.fileName).joined(separator: ", ")
                    findings.append(
                        .problem("database", "\(pending.count) migration(s) not applied (\(names)): run `pushgate migrate`, or restart serve"))
                } else {
                    isUsable = true
                    findings.append(.ok("database", "\(path) opens; schema is current (\(applied.count) migrations)"))
                }
            } catch {
                findings.append(.problem("database", "\(error)"))
            }
        }
        // BEGIN IMMEDIATE takes the write lock without writing anything: a read-only file or
        // folder, a full disk or another writer holding the lock past the timeout shows here.
        do {
            try database.execute("BEGIN IMMEDIATE")
            try database.execute("ROLLBACK")
            findings.append(.ok("database", "writable (took and released the write lock)"))
        } catch {
            findings.append(.problem("database", "cannot write \(path): \(error)"))
        }
        return Outcome(findings: findings, isUsable: isUsable, latestRecordedTime: latest)
    }

    /// The WAL and shared-memory files must belong to the database's owner: a command run as
    /// root beside a service running as its own user leaves root's `-shm` behind, and serve
    /// then fails on its first write.
    private func ownershipFindings() -> [StoreFinding] {
        guard let owner = FileOwner(path: path) else { return [] }
        var findings: [StoreFinding] = []
        let me = geteuid()
        if me != owner.uid {
            findings.append(
                .warning(
                    "database",
                    "doctor runs as \(FileOwner.userName(of: me)), the database belongs to \(owner.userName): run it as "
                        + "\(owner.userName) (sudo -u \(owner.userName) …) to check what serve can do"))
        }
        for suffix in ["-wal", "-shm"] {
            let companion = path + suffix
            guard let other = FileOwner(path: companion), other.uid != owner.uid else { continue }
            findings.append(
                .problem(
                    "database",
                    "\(companion) belongs to \(other.userName), the database to \(owner.userName): "
                        + "`chown \(owner.userName): \(companion)`, and run pushgate commands as \(owner.userName)"))
        }
        return findings
    }
}

extension DatabaseCheck {
    /// The database holds APNs keys, service accounts, password hashes and every device token;
    /// its `-wal` and `-shm` files hold recent pages of it. Readable by other local users, it
    /// gives them all of that: pushgate creates them 0600, an older install may have 0644.
    public func modeFindings() -> [StoreFinding] {
        var findings: [StoreFinding] = []
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            let mode = info.st_mode & 0o777
            if mode & 0o007 != 0 {
                findings.append(
                    .problem(
                        "database",
                        "\(file) has mode \(String(mode, radix: 8)): other local users can read the keys and tokens in it; "
                            + "`chmod 600 \(file)`"))
            } else if mode & 0o070 != 0 {
                findings.append(
                    .warning(
                        "database",
                        "\(file) has mode \(String(mode, radix: 8)): its group can read the keys and tokens in it; `chmod 600 \(file)` unless that is meant"))
            }
        }
        return findings
    }
}

/// The owner of a file, by id and name.
private struct FileOwner {
    let uid: uid_t
    let userName: String

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        uid = info.st_uid
        userName = Self.userName(of: info.st_uid)
    }

    static func userName(of uid: uid_t) -> String {
        guard let entry = getpwuid(uid) else { return "uid \(uid)" }
        return String(cString: entry.pointee.pw_name)
    }
}
