import Foundation
import PushCore

/// A node's PostgreSQL connections: up to `poolSize`, opened when first needed, each lent
/// to one thread at a time. A thread that finds every connection lent waits for one.
///
/// A database that goes away (stopped, restarted, failed over, cut off) costs the calls made
/// meanwhile a `StoreUnavailable`, promptly (libpq's `connect_timeout` bounds a connect, the
/// session's `statement_timeout` a statement), and nothing else: a broken connection is
/// closed rather than lent again, the next call opens a new one, and once the server answers
/// the pool works as before, without a restart.
public final class PostgreSQLPool: @unchecked Sendable {
    // @unchecked: `idle` and `opened` are only touched under `condition`; a connection is
    // used by the one thread that borrowed it.
    public let configuration: PostgreSQLConfiguration
    private let condition = NSCondition()
    private var idle: [PostgreSQLConnection] = []
    private var opened = 0
    private let episode: UnavailabilityEpisode

    /// - Parameter availabilityChanged: told when the database stops answering and when it
    ///   answers again, once each per episode (`serve` logs them).
    public init(
        configuration: PostgreSQLConfiguration,
        availabilityChanged: @escaping @Sendable (StoreAvailabilityChange) -> Void = { _ in }
    ) {
        self.configuration = configuration
        episode = UnavailabilityEpisode(report: availabilityChanged)
    }

    /// Lends a connection to `body` and takes it back afterwards. Throws `StoreUnavailable`
    /// when the database cannot be reached or the connection broke under `body`.
    public func withConnection<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        let startedAt = UnavailabilityEpisode.now()
        let connection: PostgreSQLConnection
        do {
            connection = try borrow()
        } catch let error as PostgreSQLError {
            throw unavailable(error)
        }
        defer { giveBack(connection) }
        do {
            let result = try body(connection)
            episode.succeeded(startedAt: startedAt)
            return result
        } catch let error as PostgreSQLError where error.isUnavailability || !connection.isHealthy {
            throw unavailable(error)
        }
    }

    private func unavailable(_ error: PostgreSQLError) -> StoreUnavailable {
        let unavailable = StoreUnavailable(reason: error.description)
        episode.failed(unavailable)
        return unavailable
    }

    private func borrow() throws -> PostgreSQLConnection {
        condition.lock()
        while true {
            while idle.isEmpty && opened >= configuration.poolSize {
                condition.wait()
            }
            guard let connection = idle.popLast() else { break }
            // A server that shut down or restarted closed the idle connections long ago; a
            // call on one would fail although the server may be back. Close it, and take
            // the next one or open a new one.
            if connection.isStillConnected() {
                condition.unlock()
                return connection
            }
            opened -= 1
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
