import Foundation
import PushCore

/// With `PUSHGATE_DATABASE_URL` set: the PostgreSQL server answers and every migration this
/// version knows is applied. Like `DatabaseCheck` it never migrates. What only the server's
/// host can tell (its disk, its clock) is left to that host's own monitoring.
public struct PostgreSQLCheck {
    let store: PostgreSQLStore
    /// How the findings name the database (never with its password).
    let description: String
    /// The schema migrations built into this binary, or why they are unusable.
    let migrations: Result<[Migration], any Error>

    /// The findings, and the registered apps when the schema is this version's.
    func run() -> (findings: [StoreFinding], apps: [RegisteredApp]?) {
        let known: [Migration]
        switch migrations {
        case .success(let migrations): known = migrations
        case .failure(let error):
            return ([.problem("database", "this binary's schema migrations are unusable: \(error)")], nil)
        }
        let pending: [Migration]
        do {
            pending = try store.pendingMigrations(known)
        } catch {
            return ([.problem("database", "\(description) does not answer: \(error)")], nil)
        }
        guard pending.isEmpty else {
            let names = pending.map(\.fileName).joined(separator: ", ")
            return ([.problem("database", "\(description) lacks migrations \(names): run `pushgate migrate`")], nil)
        }
        do {
            let apps = try store.apps()
            return ([.ok("database", "\(description) answers and is migrated")], apps)
        } catch {
            return ([.problem("database", "\(description) answers, but its apps cannot be read: \(error)")], nil)
        }
    }
}

extension PostgreSQLCheck {
    /// A database on another host is reached over a network that carries the password, every
    /// token and every key: only TLS with the server's certificate checked (`sslmode`
    /// verify-full or verify-ca) keeps a host in between from reading or impersonating it.
    /// libpq's default, `prefer`, falls back to clear text without a word.
    public static func transportFindings(_ connection: PostgreSQLConnectionString) -> [StoreFinding] {
        let remote = connection.remoteHosts
        guard !remote.isEmpty else { return [] }
        let hosts = remote.joined(separator: ", ")
        if connection.verifiesServer {
            return [.ok("database", "\(hosts) is reached over TLS with its certificate verified (sslmode=\(connection.value("sslmode") ?? ""))")]
        }
        let mode = connection.value("sslmode").map { "sslmode=\($0)" } ?? "no sslmode (libpq's default, prefer)"
        return [
            .warning(
                "database",
                "\(hosts) is on another host with \(mode): the password and every token may cross the network in clear "
                    + "or to an impostor; add sslmode=verify-full (and sslrootcert=FILE) to PUSHGATE_DATABASE_URL")
        ]
    }
}
