import Foundation
import XCTest

/// `export --output` writes a new private file only: never through a link or into a file
/// that someone else left under its temporary name.
final class ExportFileTests: XCTestCase {
    func testAnExportNeverWritesThroughALinkLeftInItsPlace() throws {
        let pushgate = try PushgateInstance()
        defer { pushgate.stop() }
        let target = pushgate.directory.appendingPathComponent("backup.jsonl").path
        let victim = pushgate.directory.appendingPathComponent("victim").path
        try "untouched\n".write(toFile: victim, atomically: true, encoding: .utf8)
        XCTAssertEqual(symlink(victim, target + ".partial"), 0)

        let refused = try pushgate.cli(["export", "--output", target])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("\(target).partial: it exists"), refused.stderr)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "untouched\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: target))

        unlink(target + ".partial")
        let written = try pushgate.cli(["export", "--output", target])
        XCTAssertEqual(written.status, 0, written.stderr)
        var info = stat()
        XCTAssertEqual(stat(target, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
    }
}
