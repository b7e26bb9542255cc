import Foundation
import PushTesting
import XCTest

/// `/status` and `pushgate doctor` show the database's size and its growth over the last day,
/// on either engine: `serve` records a sample of the size in the store at start and once an
/// hour, and both compare the size now with the store's sample a day old (DatabaseSizeStoreTests
/// steps the time through the samples).
final class DatabaseSizeIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    var pushgate: PushgateInstance!

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    func testStatusAndDoctorShowTheSizeAndItsGrowthFromTheStoresSamples() throws {
        pushgate = try PushgateInstance()
        try pushgate.start()

        // serve records its hour's sample as it starts, one row at the start of the hour.
        let deadline = Date().addingTimeInterval(20)
        var samples = try self.samples()
        while samples.isEmpty, Date() < deadline {
            usleep(50_000)
            samples = try self.samples()
        }
        XCTAssertEqual(samples.count, 1, "\(samples)\n\(pushgate.serveLog)")
        let sample = try XCTUnwrap(samples.first)
        XCTAssertEqual(sample.takenAt % 3_600, 0, "a sample's time is its hour's start")
        XCTAssertLessThanOrEqual(sample.takenAt, Int64(Date().timeIntervalSince1970))
        XCTAssertGreaterThan(sample.bytes, 0)

        // Without a sample a day old, the growth is not known yet.
        let notKnown = "its growth over the last day is not known yet: serve records the size each hour"
        let before = try statusLine()
        XCTAssertTrue(before.contains(notKnown), before)
        XCTAssertNotNil(before.range(of: #"Database: [0-9.]+ (kB|MB|GB); "#, options: .regularExpression), before)
        let doctorBefore = try doctorLine()
        XCTAssertNotNil(
            doctorBefore.range(of: #"database: size [0-9.]+ (kB|MB|GB); "#, options: .regularExpression), doctorBefore)
        XCTAssertTrue(doctorBefore.contains(notKnown), doctorBefore)

        // A sample of the hour a day before serve's, 5 GB larger than serve's (what the test
        // database's size does meanwhile is far below the rounding): both show the store's
        // sample, which this serve never took itself.
        try pushgate.sql(
            "INSERT INTO database_sizes (taken_at, bytes) SELECT taken_at - 86400, bytes + 5000000000 FROM database_sizes")
        let growth = "-5.0 GB over the last day (since \(Self.utc(sample.takenAt - 86_400)))"
        let status = try statusLine()
        XCTAssertTrue(status.contains(growth), "\(growth) in \(status)")
        let doctor = try doctorLine()
        XCTAssertNotNil(
            doctor.range(of: #"database: size [0-9.]+ (kB|MB|GB); "#, options: .regularExpression), doctor)
        XCTAssertTrue(doctor.contains(growth), "\(growth) in \(doctor)")
    }

    /// `/status`'s database line.
    func statusLine() throws -> String {
        let status = try pushgate.client.get("/status")
        XCTAssertEqual(status.status, 200)
        return String(
            try XCTUnwrap(status.text.split(separator: "\n").first { $0.contains("id=\"database-size\"") }, status.text))
    }

    /// `pushgate doctor`'s line of the database's size.
    func doctorLine() throws -> String {
        let doctor = try pushgate.cli([
            "doctor", "--nginx-conf", pushgate.directory.appendingPathComponent("nginx/pushgate.conf").path,
        ])
        let line = doctor.stdout.split(separator: "\n").first { $0.contains("database: size ") }
        return String(try XCTUnwrap(line, doctor.stdout + doctor.stderr))
    }

    /// The store's samples, oldest first.
    func samples() throws -> [(takenAt: Int64, bytes: Int64)] {
        try pushgate.sql("SELECT taken_at, bytes FROM database_sizes ORDER BY taken_at").split(separator: "\n").map { line in
            let fields = line.split(separator: "|").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            guard fields.count == 2, let takenAt = fields[0], let bytes = fields[1] else {
                throw PushgateInstance.Failure("not a sample: \(line)")
            }
            return (takenAt, bytes)
        }
    }

    /// `2026-11-27 13:00 UTC`, as the line writes a time.
    static func utc(_ unixSeconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds))) + " UTC"
    }
}
