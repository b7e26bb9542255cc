@testable import App
import Foundation
import XCTest

final class ClockCheckTests: XCTestCase {
    private let sane = Date(timeIntervalSince1970: 1_795_000_000)  // late November 2026

    func testAClockBeforeThisVersionIsAProblem() {
        let findings = ClockCheck(now: Date(timeIntervalSince1970: 0), latestRecordedTime: nil, synchronised: true).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("1970-01-01"), findings[0].message)
    }

    func testAClockBehindTheDatabasesRecordsIsAProblem() {
        let recorded = Int64(sane.timeIntervalSince1970) + 3600
        let findings = ClockCheck(now: sane, latestRecordedTime: recorded, synchronised: true).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("went back"), findings[0].message)
        // A few seconds between hosts is no problem.
        XCTAssertEqual(ClockCheck(now: sane, latestRecordedTime: recorded - 3590, synchronised: true).run().map(\.verdict), [.ok])
    }

    func testNTPStateIsAWarningOnly() {
        XCTAssertEqual(ClockCheck(now: sane, latestRecordedTime: nil, synchronised: false).run().map(\.verdict), [.warning])
        XCTAssertEqual(ClockCheck(now: sane, latestRecordedTime: nil, synchronised: nil).run().map(\.verdict), [.ok])
        XCTAssertEqual(ClockCheck(now: Date(), latestRecordedTime: nil, synchronised: nil).run().map(\.verdict), [.ok], "the machine's clock")
    }
}

final class DiskSpaceCheckTests: XCTestCase {
    private let mib: UInt64 = 1 << 20

    func testTooLittleRoomIsAProblem() {
        let low = DiskSpaceCheck.verdict(directory: "/var/lib/pushgate", freeBytes: 100 * mib, databaseBytes: 10 * mib)
        XCTAssertEqual(low.verdict, .problem)
        XCTAssertTrue(low.message.contains("100 MiB free in /var/lib/pushgate"), low.message)
        XCTAssertTrue(low.message.contains("needs at least 256 MiB"), low.message)
        // A big database needs as much again.
        XCTAssertEqual(DiskSpaceCheck.verdict(directory: "/d", freeBytes: 900 * mib, databaseBytes: 1000 * mib).verdict, .problem)
        XCTAssertEqual(DiskSpaceCheck.verdict(directory: "/d", freeBytes: 2000 * mib, databaseBytes: 1000 * mib).verdict, .ok)
        XCTAssertEqual(DiskSpaceCheck.verdict(directory: "/d", freeBytes: 300 * mib, databaseBytes: 0).verdict, .ok)
    }

    func testTheRealFileSystemIsMeasured() throws {
        let scratch = try ScratchDirectory()
        let findings = DiskSpaceCheck(databasePath: scratch.file("pushgate.sqlite")).run()
        XCTAssertEqual(findings.count, 1)
        XCTAssertTrue(findings[0].message.contains("free in \(scratch.path)"), findings[0].message)
        let gone = DiskSpaceCheck(databasePath: scratch.file("no/such/dir/pushgate.sqlite")).run()
        XCTAssertEqual(gone.map(\.verdict), [.problem])
    }
}

final class ConfigurationCheckTests: XCTestCase {
    private func check(_ text: String?, environment: [String: String] = [:]) throws -> (Configuration?, [DoctorFinding]) {
        let scratch = try ScratchDirectory()
        let path = scratch.file("pushgate.conf")
        if let text { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        return ConfigurationCheck(path: path, environment: environment).run()
    }

    func testAGoodFileParses() throws {
        let (configuration, findings) = try check("PUSHGATE_DB = /var/lib/pushgate/pushgate.sqlite\nPUSHGATE_SOCKET_MODE = 0660\n")
        XCTAssertEqual(configuration?.database, "/var/lib/pushgate/pushgate.sqlite")
        XCTAssertEqual(findings.map(\.verdict), [.ok])
    }

    func testABadFileIsAProblemAndStopsTheRest() throws {
        let (malformed, lines) = try check("PUSHGATE_DB /var/lib/pushgate.sqlite\n")
        XCTAssertNil(malformed)
        XCTAssertEqual(lines.map(\.verdict), [.problem])
        XCTAssertTrue(lines[0].message.contains("pushgate.conf:1: expected KEY = value"), lines[0].message)

        let (wrongType, typed) = try check("PUSHGATE_THREADS = many\n")
        XCTAssertNil(wrongType)
        XCTAssertTrue(typed[0].message.contains("PUSHGATE_THREADS=many is invalid"), typed[0].message)

        let (missing, unread) = try check(nil)
        XCTAssertNil(missing)
        XCTAssertTrue(unread[0].message.contains("cannot read configuration file"), unread[0].message)

        let (fromEnvironment, environmentLines) = try check("", environment: ["PUSHGATE_SOCKET_MODE": "999"])
        XCTAssertNil(fromEnvironment)
        XCTAssertEqual(environmentLines.map(\.verdict), [.problem])
    }

    func testAnUnknownKeyIsAWarning() throws {
        let (configuration, findings) = try check("PUSHGATE_DATABASE = x\n")
        XCTAssertNotNil(configuration)
        XCTAssertEqual(findings.map(\.verdict), [.ok, .warning])
        XCTAssertTrue(findings[1].message.contains("unknown key PUSHGATE_DATABASE"), findings[1].message)
    }

    /// An older install's configuration names the migrations folder: it still loads, and the
    /// warning says the key is gone rather than calling it unknown.
    func testTheRetiredMigrationsKeyIsAWarningThatSaysWhy() throws {
        let (configuration, findings) = try check("PUSHGATE_SQL_DIR = /usr/local/share/pushgate/sql\n")
        XCTAssertNotNil(configuration)
        XCTAssertEqual(findings.map(\.verdict), [.ok, .warning])
        XCTAssertTrue(
            findings[1].message.contains("PUSHGATE_SQL_DIR is no longer used (the schema migrations are built into pushgate): remove it"),
            findings[1].message)
    }
}
