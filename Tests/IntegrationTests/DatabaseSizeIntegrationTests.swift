import Foundation
import PushTesting
import XCTest

/// `/status` shows the database's size and its growth over the last day (which `serve` knows
/// once it has sampled the size for a day: DatabaseSizeHistoryTests steps that clock), and
/// `pushgate doctor` shows its size, on either engine.
final class DatabaseSizeIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    var pushgate: PushgateInstance!

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    func testStatusAndDoctorShowTheDatabasesSize() throws {
        pushgate = try PushgateInstance()
        try pushgate.start()
        let status = try pushgate.client.get("/status")
        XCTAssertEqual(status.status, 200)
        let line = try XCTUnwrap(
            status.text.split(separator: "\n").first { $0.contains("id=\"database-size\"") }, status.text)
        XCTAssertTrue(line.contains("its growth over a day is known once serve has run a day"), String(line))
        XCTAssertNotNil(
            line.range(of: #"Database: [0-9.]+ (kB|MB|GB); "#, options: .regularExpression),
            "a size in units: \(line)")

        let doctor = try pushgate.cli([
            "doctor", "--nginx-conf", pushgate.directory.appendingPathComponent("nginx/pushgate.conf").path,
        ])
        let size = doctor.stdout.split(separator: "\n").first { $0.contains("database") && $0.contains("size ") }
        XCTAssertNotNil(size, doctor.stdout + doctor.stderr)
        XCTAssertNotNil(
            size?.range(of: #"size [0-9.]+ (kB|MB|GB) \(its growth over the last day: /status\)"#, options: .regularExpression),
            String(size ?? ""))
    }
}
