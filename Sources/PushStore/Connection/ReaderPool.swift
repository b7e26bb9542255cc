import Foundation

/// The connections a `SQLiteStore` reads on: one per thread using the store at the same moment,
/// opened when first needed and kept. WAL lets them read in parallel; what they write goes to
/// the store's writer when it has one. So one store serves every responder thread, as
/// PostgreSQL's pool does, instead of a store per thread.
final class ReaderPool: @unchecked Sendable {
    // @unchecked: `idle` is only touched under `lock`; a connection is used by one caller at a
    // time, between `checkOut` and `checkIn`.
    private let lock = NSLock()
    private var idle: [Database]
    private let open: () throws -> Database

    /// - Parameters:
    ///   - first: the store's first connection, opened (and maybe migrated) by its caller.
    ///   - open: opens another connection on the same file with the same settings.
    init(first: Database, open: @escaping () throws -> Database) {
        idle = [first]
        self.open = open
    }

    /// A connection no other caller is using, opened now when every one is in use.
    func checkOut() throws -> Database {
        lock.lock()
        if let database = idle.popLast() {
            lock.unlock()
            return database
        }
        lock.unlock()
        return try open()
    }

    func checkIn(_ database: Database) {
        lock.lock()
        idle.append(database)
        lock.unlock()
    }
}
