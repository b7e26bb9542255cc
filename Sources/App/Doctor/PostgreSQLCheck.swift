import Foundation
import PushCore
import PushStore

/// With `PUSHGATE_DATABASE_URL` set: the PostgreSQL server answers and every migration this
/// version knows is applied. Like `DatabaseCheck` it never migrates. What only the server's
/// host can tell (its disk, its clock) is left to that host's own monitoring.
struct PostgreSQLCheck {
    let store: PostgreSQLStore
    /// How the findings name the database (never with its password).
    let description: String
    /// The schema migrations built into this binary, or why they are unusable.
    let migrations: Result<[Migration], any Error>

    /// The findings, and the registered apps when the schema is this version's.
    func run() -> (findings: [DoctorFinding], apps: [RegisteredApp]?) {
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
