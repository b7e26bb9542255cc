import Foundation
import PushStore

/// The database opens, every migration this version knows is applied, and it takes a write
/// lock. It never creates the file nor migrates: a doctor that repaired silently would hide
/// the cause.
struct DatabaseCheck {
    let path: String
    /// The schema migrations built into this binary, or why they are unusable.
    let migrations: Result<[Migration], any Error>
    let busyTimeoutMilliseconds: Int

    struct Outcome {
        var findings: [DoctorFinding]
        /// Whether the schema is this version's: only then are the apps read.
        var isUsable: Bool
        /// The newest time the database records (a migration's `applied_at`), for the clock.
        var latestRecordedTime: Int64?
    }

    func run() -> Outcome {
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
    private func ownershipFindings() -> [DoctorFinding] {
        guard let owner = FileOwner(path: path) else { return [] }
        var findings: [DoctorFinding] = []
        let me = geteuid()
        if me != owner.uid {
            findings.append(
                .warning(
                    "database",
                    "doctor runs as \(UserIdentity.name(of: me)), the database belongs to \(owner.userName): run it as "
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
    func modeFindings() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
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
struct FileOwner {
    let uid: uid_t
    let userName: String

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        uid = info.st_uid
        userName = UserIdentity.name(of: info.st_uid)
    }
}
