@testable import FastCGI
import Foundation
import PushTesting
import XCTest

/// The refused-connection log's rate, on a clock the test moves: the first refusal at once,
/// then at most a line a minute that counts what it did not log.
final class RefusedConnectionLogTests: XCTestCase {
    /// A clock the test sets; read from the log's calls.
    private final class Clock: @unchecked Sendable {
        // @unchecked: set by the test thread between calls, read on it.
        var seconds: Double = 1_000
    }

    func testTheFirstRefusalIsLoggedAtOnceThenOneLineAMinuteCountingTheRest() throws {
        let (logger, lines) = RecordingLogHandler.logger()
        let clock = Clock()
        let log = RefusedConnectionLog(logger: logger, intervalSeconds: 60, now: { clock.seconds })
        let allowed = try XCTUnwrap(FastCGIClients(listing: "10.0.0.2"))

        log.refused(from: "198.51.100.7", allowed: allowed)
        XCTAssertEqual(lines.all.map(\.message), [
            "FastCGI connection from 198.51.100.7 closed unread: not in PUSHGATE_FASTCGI_CLIENTS (10.0.0.2)"
        ])
        XCTAssertEqual(lines.all.map(\.level), [.warning])

        // Within the minute: counted, not logged, up to its last second.
        for (offset, address) in [(1.0, "198.51.100.8"), (30, "198.51.100.9"), (59.9, "203.0.113.1")] {
            clock.seconds = 1_000 + offset
            log.refused(from: address, allowed: allowed)
        }
        XCTAssertEqual(lines.all.count, 1)

        // A minute after the first line: one line, naming the latest and counting those since.
        clock.seconds = 1_060
        log.refused(from: "203.0.113.2", allowed: allowed)
        XCTAssertEqual(lines.all.count, 2)
        XCTAssertEqual(
            lines.all.last?.message,
            "FastCGI connection from 203.0.113.2 closed unread: not in PUSHGATE_FASTCGI_CLIENTS (10.0.0.2); 4 closed since the last such line")

        // The minute runs from that line: a refusal 59 s later waits, one after 60 s is logged
        // alone, with no count.
        clock.seconds = 1_119
        log.refused(from: "203.0.113.3", allowed: allowed)
        XCTAssertEqual(lines.all.count, 2)
        clock.seconds = 1_180
        log.refused(from: "203.0.113.4", allowed: allowed)
        XCTAssertEqual(lines.all.count, 3)
        XCTAssertEqual(
            lines.all.last?.message,
            "FastCGI connection from 203.0.113.4 closed unread: not in PUSHGATE_FASTCGI_CLIENTS (10.0.0.2); 2 closed since the last such line")
        clock.seconds = 10_000
        log.refused(from: "203.0.113.5", allowed: allowed)
        XCTAssertEqual(
            lines.all.last?.message,
            "FastCGI connection from 203.0.113.5 closed unread: not in PUSHGATE_FASTCGI_CLIENTS (10.0.0.2)")
    }
}
