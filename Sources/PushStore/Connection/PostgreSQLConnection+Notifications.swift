import CLibPQ
import Foundation

// LISTEN/NOTIFY: a session that LISTENs receives the notifications committed by any session
// of the server, asynchronously, on its socket. Waiting for them is a poll() on that socket
// and PQconsumeInput/PQnotifies, so that the waiting thread sleeps in the kernel and wakes
// when the server sends something (or the connection breaks).
extension PostgreSQLConnection {
    /// Waits up to `timeoutMilliseconds` for notifications on the channels this session
    /// listens to; returns their payloads, empty after the time-out. Throws when the
    /// connection broke: a reconnected session would have lost its LISTENs, so the caller
    /// opens a new one and listens again.
    func waitForNotifications(timeoutMilliseconds: Int32) throws -> [String] {
        guard isHealthy else {
            throw PostgreSQLError(sqlState: "08006", message: "the listening connection broke", sql: nil)
        }
        let handle = try liveHandle()
        var payloads = Self.takeNotifications(handle)
        guard payloads.isEmpty else { return payloads }
        let socket = PQsocket(handle)
        guard socket >= 0 else {
            throw PostgreSQLError(sqlState: "08006", message: "the listening connection has no socket", sql: nil)
        }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        if ready < 0 {
            guard errno == EINTR else {
                throw PostgreSQLError(sqlState: "08006", message: "poll: \(String(cString: strerror(errno)))", sql: nil)
            }
            return []
        }
        if ready > 0 {
            // Reads what arrived; 0 when the connection broke (the server went away).
            guard PQconsumeInput(handle) == 1 else { throw PostgreSQLError(result: nil, connection: handle, sql: nil) }
            payloads = Self.takeNotifications(handle)
        }
        return payloads
    }

    private static func takeNotifications(_ handle: OpaquePointer) -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(notification.pointee.extra.map { String(cString: $0) } ?? "")
            PQfreemem(notification)
        }
        return payloads
    }
}
