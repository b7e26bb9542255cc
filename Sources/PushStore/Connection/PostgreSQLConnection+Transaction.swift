import Foundation

extension PostgreSQLConnection {
    /// Attempts of a write transaction that keeps meeting serialization failures. Generous:
    /// eight threads rewriting the same ten accounts (the store's concurrency test) can
    /// collide many times in a row; phones of a real fleet rarely share a row at all.
    static let maximumWriteAttempts = 50

    /// Runs `body` in a SERIALIZABLE write transaction: committed when it returns, rolled
    /// back when it throws. SERIALIZABLE gives what SQLite's single writer gives the store's
    /// look-then-write code (nothing comes between the look-up and the write); the price is
    /// that PostgreSQL may refuse a transaction that raced another (40001, or 40P01 for a
    /// deadlock), and then the whole of `body` runs again, after a short random pause.
    public func writeTransaction<T>(_ body: () throws -> T) throws -> T {
        try retrying(begin: "BEGIN ISOLATION LEVEL SERIALIZABLE", when: \.isSerializationFailure, body)
    }

    /// Runs `body` in a READ COMMITTED write transaction, for writes that rely only on the row
    /// locks they take (`SQLStore.lockingWrite`). Under SERIALIZABLE the outbox's claim also
    /// tracked every row and index page it read, and was refused, or made a fan-out's step or
    /// completion be refused, whenever another node wrote one of them; the delivery log's
    /// trim, which both nodes run, refused each other. A deadlock (40P01) still runs `body`
    /// again.
    public func lockingWriteTransaction<T>(_ body: () throws -> T) throws -> T {
        try retrying(begin: "BEGIN ISOLATION LEVEL READ COMMITTED", when: \.isSerializationFailure, body)
    }

    /// Runs `body`, one statement that is a whole write by itself (a call of a function of the
    /// schema that takes the locks it relies on: an advisory lock on what it owns, `FOR
    /// UPDATE` before it deletes), outside any explicit transaction: the statement is its own
    /// READ COMMITTED transaction, one round trip instead of three (BEGIN, the statement,
    /// COMMIT). What it cannot lock, a row another transaction inserts or deletes meanwhile,
    /// shows as a unique or foreign key violation: then, as after a deadlock or a
    /// serialization failure, `body` runs again.
    public func lockingWriteStatement<T>(_ body: () throws -> T) throws -> T {
        try retrying(begin: nil, when: Self.isLockingRace, body)
    }

    private static func isLockingRace(_ error: PostgreSQLError) -> Bool {
        error.isSerializationFailure || error.sqlState == "23505" || error.sqlState == "23503"
    }

    private func retrying<T>(begin: String?, when retriable: (PostgreSQLError) -> Bool, _ body: () throws -> T) throws
        -> T
    {
        var attempt = 1
        while true {
            do {
                guard let begin else { return try body() }
                return try transaction(begin: begin, body)
            } catch let error as PostgreSQLError where retriable(error) && attempt < Self.maximumWriteAttempts {
                attempt += 1
                // A random pause that grows with the attempts up to 20 ms, so that
                // transactions that collided retry apart instead of colliding again.
                usleep(UInt32.random(in: 0...min(20_000, 250 << UInt32(min(attempt, 10)))))
            }
        }
    }

    /// Runs `body` in a read-only transaction, so that several queries see one snapshot.
    public func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    private func transaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        try run(begin)
        isInsideTransaction = true
        defer { isInsideTransaction = false }
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            // A failed COMMIT has ended the transaction already; anything else left it open
            // (aborted after a failed statement, or fine when `body` threw its own error).
            if isInTransaction { try? run("ROLLBACK") }
            throw error
        }
    }
}
