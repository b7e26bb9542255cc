import Foundation
import XCTest

/// Only `migrate` and `serve` create a database: any other command on a path with none stops
/// with the path it looked at, instead of working on a new, empty one.
final class MissingDatabaseTests: XCTestCase {
    func testCommandsStopWithThePathAndCreateNothing() throws {
        let pushgate = try PushgateInstance(migrated: false)
        let commands: [[String]] = [
            ["apps", "list"], ["tokens", "list"], ["keys", "add", "pbx-1"], ["keys", "list"], ["users", "list"],
            ["outbox", "status"], ["send", "--app", "com.example.app", "--token", String(repeating: "a1", count: 32), "--alert", "x"],
            [
                "event", "--owner", "9aed5e94-3803-11e3-8475-0024e8f90cc0", "--message", "fax_new", "--field", "fax=af729cc0-3251-11e2-81c1-0800200c9a66",
                "--field", "phone=+492215587412", "--field", "page_count=2",
            ],
        ]
        for command in commands {
            let output = try pushgate.cli(command)
            XCTAssertNotEqual(output.status, 0, "\(command): \(output.stdout)")
            XCTAssertTrue(output.stderr.contains("no database at \(pushgate.database)"), "\(command): \(output.stderr)")
            XCTAssertTrue(output.stderr.contains("PUSHGATE_DB"), "\(command): \(output.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: pushgate.database), "\(command) created it")
        }

        let migrated = try pushgate.cli(["migrate"])
        XCTAssertEqual(migrated.status, 0, migrated.stderr)
        let listed = try pushgate.cli(["apps", "list"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
    }

    /// The default PUSHGATE_DB is relative: run from another directory, the message says
    /// which directory it was taken from.
    func testARelativePathIsShownWithTheDirectoryItWasTakenFrom() throws {
        let pushgate = try PushgateInstance(environment: ["PUSHGATE_DB": "var/pushgate.sqlite"], migrated: false)
        let process = Process()
        process.executableURL = PushgateInstance.executable
        process.arguments = ["apps", "list"]
        process.environment = pushgate.environment
        process.currentDirectoryURL = pushgate.directory
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        XCTAssertNotEqual(process.terminationStatus, 0)
        let absolute = pushgate.directory.appendingPathComponent("var/pushgate.sqlite").path
        XCTAssertTrue(stderr.contains("no database at \(absolute)"), stderr)
        XCTAssertTrue(stderr.contains("PUSHGATE_DB=var/pushgate.sqlite, from \(pushgate.directory.path)"), stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pushgate.directory.appendingPathComponent("var").path))
    }
}
