import PushCore
import Foundation

/// Wakes this node's outbox worker when any node publishes, on PostgreSQL: a dedicated
/// connection LISTENs on `channel`, and every enqueue NOTIFYs it in the publishing
/// transaction, so the notification goes out only when the rows are committed (and not at
/// all when the transaction rolls back). Within a process the publisher also wakes the worker
/// directly; this carries the wake-up to the other nodes.
///
/// Notifications are not queued for a session that is not listening: after (re)connecting,
/// the listener wakes the worker once, for whatever was published meanwhile, and the
/// worker's short idle poll covers anything else missed. A broken connection is replaced
/// after a pause, by itself.
public final class OutboxWakeListener: @unchecked Sendable {
    // @unchecked: `state`, `listening` and `received` are only touched with `condition` locked.
    /// The channel every node LISTENs on; the payload is the schema of the outbox published to,
    /// so that stores in several schemas of one database wake only their own workers.
    static let channel = "pushgate_outbox"

    private let configuration: PostgreSQLConfiguration
    private let reconnectPauseMilliseconds: Int
    private let onWake: @Sendable () -> Void
    private let onError: @Sendable (any Error) -> Void
    private let condition = NSCondition()
    private var state = State.notStarted
    private var listening = false
    private var received = 0

    private enum State {
        case notStarted, running, stopping, stopped
    }

    /// - Parameters:
    ///   - onWake: called on the listener's thread for each notification of this store's
    ///     schema, and once after every (re)connection; it should only signal (the worker's
    ///     `notify()`).
    ///   - onError: told why listening stopped or could not start, once per outage (not for
    ///     each failed attempt to connect again).
    public init(
        configuration: PostgreSQLConfiguration, reconnectPauseMilliseconds: Int = 1_000,
        onWake: @escaping @Sendable () -> Void, onError: @escaping @Sendable (any Error) -> Void
    ) {
        self.configuration = configuration
        self.reconnectPauseMilliseconds = reconnectPauseMilliseconds
        self.onWake = onWake
        self.onError = onError
    }

    /// Starts the listening thread; a second call does nothing.
    public func start() {
        condition.lock()
        defer { condition.unlock() }
        guard state == .notStarted else { return }
        state = .running
        let thread = Thread { [self] in run() }
        thread.name = "pushgate-outbox-listen"
        thread.start()
    }

    /// Closes the connection and returns once the thread has ended (within the poll interval).
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        switch state {
        case .notStarted, .stopped:
            state = .stopped
        case .running, .stopping:
            state = .stopping
            condition.broadcast()
            while state != .stopped { condition.wait() }
        }
    }

    /// Waits until the listener's LISTEN is in place (true), or `seconds` pass (false).
    public func waitUntilListening(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !listening, condition.wait(until: deadline) {}
        return listening
    }

    /// Notifications of this store's schema received so far.
    public var notificationsReceived: Int {
        condition.lock()
        defer { condition.unlock() }
        return received
    }

    private var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return state == .running
    }

    private func run() {
        var failing = false
        while isRunning {
            do {
                try listen {
                    failing = false
                }
            } catch {
                setListening(false)
                guard isRunning else { break }
                if !failing { onError(error) }
                failing = true
                pause()
            }
        }
        condition.lock()
        listening = false
        state = .stopped
        condition.broadcast()
        condition.unlock()
    }

    /// One connection's life: LISTEN, then wait for notifications until `stop()` or a failure.
    private func listen(_ listening: () -> Void) throws {
        let connection = try PostgreSQLConnection(configuration: configuration)
        let schema = try connection.withStatement("SELECT current_schema()") { row in
            try row.step() ? row.string(0) ?? "" : ""
        }
        try connection.execute("LISTEN \(Self.channel)")
        setListening(true)
        listening()
        onWake()
        while isRunning {
            // Short waits: `stop()` is noticed within one.
            let payloads = try connection.waitForNotifications(timeoutMilliseconds: 250)
            let ours = payloads.filter { $0 == schema }.count
            guard ours > 0 else { continue }
            condition.lock()
            received += ours
            condition.unlock()
            onWake()
        }
    }

    private func setListening(_ value: Bool) {
        condition.lock()
        listening = value
        condition.broadcast()
        condition.unlock()
    }

    private func pause() {
        let until = Date(timeIntervalSinceNow: Double(reconnectPauseMilliseconds) / 1000)
        condition.lock()
        while state == .running, condition.wait(until: until) {}
        condition.unlock()
    }
}

extension OutboxWakeListener: Service {
    public var serviceName: String { "outbox wake listener" }
}
