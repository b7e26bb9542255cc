import Foundation
import PushTesting
import XCTest

/// A multi-host PostgreSQL URL with `target_session_attrs=read-write`, against two throwaway
/// servers of its own: the first is read-only (`default_transaction_read_only`, which libpq's
/// read-write check sees as a standby), so `migrate` and `serve` write to the second; then
/// the second goes away and the first becomes writable, as after a failover, and a new
/// request is written to the first once pushgate has reconnected.
///
/// Every external command runs under `timeout`, every libpq connection has a
/// connect_timeout, and every wait has a deadline: a server that never comes cannot hang it.
final class MultiHostFailoverTests: XCTestCase {
    private static let throwaway = PushgateInstance.repository.appendingPathComponent("scripts/throwaway-postgres").path
    private var first: URL!
    private var second: URL!
    private var pushgate: PushgateInstance?

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/initdb"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/psql")
        else {
            throw XCTSkip("PostgreSQL 15 is not installed (scripts/throwaway-postgres installs it)")
        }
        let base = FileManager.default.temporaryDirectory
        first = base.appendingPathComponent("pushgate-pg1-\(UUID().uuidString.prefix(8))")
        second = base.appendingPathComponent("pushgate-pg2-\(UUID().uuidString.prefix(8))")
        for directory in [first!, second!] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Through a shell that closes every descriptor but 0–2 first: the server it starts
            // outlives it, and would otherwise hold the one Foundation's Process watches to
            // learn that its child ended, so that waitUntilExit never returns.
            let started = try run([
                "/bin/bash", "-c",
                #"for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-"; done; exec "$0" "$@""#,
                "/usr/bin/timeout", "120", Self.throwaway, "start", directory.path,
            ])
            guard started.status == 0 else { throw PushgateInstance.Failure("throwaway-postgres start: \(started.stderr)") }
        }
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        for directory in [first, second].compactMap({ $0 }) {
            _ = try? run(["/usr/bin/timeout", "60", Self.throwaway, "stop", directory.path])
            try? FileManager.default.removeItem(at: directory)
        }
        super.tearDown()
    }

    /// Both servers' sockets, the first first, for pushgate.
    private var multiHostURL: String {
        "postgresql:///postgres?host=\(first.path),\(second.path)&target_session_attrs=read-write&user=postgres&connect_timeout=5"
    }

    private func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> PushgateInstance.Output {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") && !$0.key.hasPrefix("PG") }
        for (key, value) in extra { environment[key] = value }
        return try .of(arguments[0], Array(arguments.dropFirst()), environment: environment)
    }

    /// One statement on one server as its superuser, in a session that may write whatever
    /// the server's default; the trimmed output.
    @discardableResult
    private func admin(_ server: URL, _ sql: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let url = "postgresql:///postgres?host=\(server.path)&user=postgres&connect_timeout=5&options=-cdefault_transaction_read_only%3Doff"
        let output = try run(["/usr/bin/timeout", "30", "/usr/bin/psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql])
        guard output.status == 0 else { throw PushgateInstance.Failure("psql \(sql) on \(server.lastPathComponent): \(output.stderr)") }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What a new session on `server` gets by default (the read-write check's view).
    private func defaultReadOnly(_ server: URL) throws -> String {
        let url = "postgresql:///postgres?host=\(server.path)&user=postgres&connect_timeout=5"
        let output = try run(["/usr/bin/timeout", "30", "/usr/bin/psql", "-X", "-A", "-t", "-q", url, "-c", "SHOW transaction_read_only"])
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Sets the server's default for new and open sessions, and waits until a new session sees it.
    private func setReadOnly(_ server: URL, _ readOnly: Bool) throws {
        try admin(
            server,
            readOnly ? "ALTER SYSTEM SET default_transaction_read_only = on" : "ALTER SYSTEM RESET default_transaction_read_only")
        try admin(server, "SELECT pg_reload_conf()")
        try waitUntil("\(server.lastPathComponent) to be read-\(readOnly ? "only" : "write")") {
            (try? self.defaultReadOnly(server)) == (readOnly ? "on" : "off")
        }
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 60, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return }
            usleep(100_000)
        }
        throw PushgateInstance.Failure("timed out after \(Int(timeout)) s waiting for \(what)")
    }

    private func report(_ selector: String, seed: Int, through instance: PushgateInstance) throws -> HTTPClient.Response {
        let token = Data((0..<32).map { UInt8(($0 + seed) & 0xFF) }).base64EncodedString()
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try HTTPClient(port: instance.port, timeoutSeconds: 40).get(
            "/token/?selector=\(selector)&token_calls=\(token)&appid_calls=com.example.failover")
    }

    func testTheReadWriteHostIsChosenAndANewConnectionFollowsAFailover() throws {
        try setReadOnly(first, true)

        // migrate and serve write to the second server, the only writable one.
        let instance = try PushgateInstance(
            environment: ["PUSHGATE_DATABASE_URL": multiHostURL, "PUSHGATE_DATABASE_POOL": "2"], migrated: false)
        pushgate = instance
        let migrated = try run(["/usr/bin/timeout", "60", PushgateInstance.executable.path, "migrate"], environment: instance.environment)
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        XCTAssertTrue(migrated.stdout.contains("applied 0001_initial.sql"), migrated.stdout)
        XCTAssertEqual(try admin(first, "SELECT to_regclass('schema_migrations') IS NULL"), "t", "migrated the read-only server")
        XCTAssertNotEqual(try admin(second, "SELECT count(*) FROM schema_migrations"), "0")

        try instance.start()
        let before = try report("before-failover-01", seed: 1, through: instance)
        XCTAssertEqual(before.status, 200, before.text)
        XCTAssertEqual(try admin(second, "SELECT selector FROM acrobits_accounts"), "before-failover-01")

        // The failover: the second goes away, the first becomes writable (with the schema a
        // standby would have had replicated: migrate now reaches the first, a fresh connection).
        let stopped = try run(["/usr/bin/timeout", "60", Self.throwaway, "stop", second.path])
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        try setReadOnly(first, false)
        let again = try run(["/usr/bin/timeout", "60", PushgateInstance.executable.path, "migrate"], environment: instance.environment)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("applied 0001_initial.sql"), again.stdout)

        // serve's pooled connections to the second are broken now: a request may fail once per
        // connection while the pool drops them; a new connection goes to the first.
        var answers: [Int] = []
        try waitUntil("a report written after the failover") {
            let status = (try? self.report("after-failover-001", seed: 2, through: instance).status) ?? 0
            answers.append(status)
            return status == 200
        }
        XCTAssertEqual(try admin(first, "SELECT selector FROM acrobits_accounts"), "after-failover-001", "answers: \(answers)")
        XCTAssertEqual(try HTTPClient(port: instance.port).get("/readyz").status, 200)

        // With no writable server left, a command fails within its connect timeouts, naming why.
        try setReadOnly(first, true)
        let refused = try run(["/usr/bin/timeout", "60", PushgateInstance.executable.path, "migrate"], environment: instance.environment)
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("read-only") || refused.stderr.contains("read-write"), refused.stderr)
    }
}
