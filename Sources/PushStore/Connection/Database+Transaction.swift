extension Database {
    /// Runs `body` in a write transaction: committed when it returns, rolled back when it
    /// throws. BEGIN IMMEDIATE takes the write lock up front, so a second writer waits for it
    /// (up to the busy timeout) instead of failing with SQLITE_BUSY when a deferred
    /// transaction would try to upgrade its read lock mid-way.
    public func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a read transaction, so that several queries see one snapshot.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN DEFERRED", body)
    }

    private func transaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        try run(begin)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            rollback()
            throw error
        }
    }

    /// Some errors (SQLITE_FULL, SQLITE_IOERR, …) roll back by themselves; only roll back a
    /// transaction still open. A failing ROLLBACK leaves nothing better to do than to report
    /// the original error, which the caller does.
    private func rollback() {
        if isInTransaction {
            try? run("ROLLBACK")
        }
    }
}
