import Foundation

/// A node's PostgreSQL connections: up to `poolSize`, opened when first needed, each lent
/// to one thread at a time. A thread that finds every connection lent waits for one.
public final class PostgreSQLPool: @unchecked Sendable {
    // @unchecked: `idle` and `opened` are only touched under `condition`; a connection is
    // used by the one thread that borrowed it.
    public let configuration: PostgreSQLConfiguration
    private let condition = NSCondition()
    private var idle: [PostgreSQLConnection] = []
    private var opened = 0

    public init(configuration: PostgreSQLConfiguration) {
        self.configuration = configuration
    }

    /// Lends a connection to `body` and takes it back afterwards.
    public func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let connection = try borrow()
        defer { giveBack(connection) }
        return try body(connection)
    }

    private func borrow() throws -> PostgreSQLConnection {
        condition.lock()
        while idle.isEmpty && opened >= configuration.poolSize {
            condition.wait()
        }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        opened += 1
        condition.unlock()
        do {
            return try PostgreSQLConnection(configuration: configuration)
        } catch {
            condition.lock()
            opened -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// A broken connection, or one left inside a transaction (which `body` must never do),
    /// is closed rather than lent again.
    private func giveBack(_ connection: PostgreSQLConnection) {
        let reusable = connection.isHealthy && !connection.isInTransaction
        condition.lock()
        if reusable {
            idle.append(connection)
        } else {
            opened -= 1
        }
        condition.signal()
        condition.unlock()
    }
}
