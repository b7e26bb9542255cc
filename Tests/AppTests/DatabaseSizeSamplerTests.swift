import Foundation
import PushCore
@testable import PushStore
import XCTest

@testable import App

/// serve's sampler of the database's size on a real SQLite store: one sample an hour, and an
/// hour whose write failed is tried again at the next tick. (The samples themselves, on both
/// engines: DatabaseSizeStoreTests.)
final class DatabaseSizeSamplerTests: XCTestCase {
    /// 2023-11-14 22:00 UTC.
    let hour: Int64 = 1_699_999_200
    var directory: URL!
    var path: String { directory.appendingPathComponent("pushgate.sqlite").path }

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func testOneSampleAnHourAndAFailedOneIsTriedAgainAtTheNextTick() throws {
        let store = try SQLiteStore(path: path)
        _ = try store.migrate()
        let sampler = DatabaseSizeSampler(store: store)

        try sampler.sampleIfDue(now: hour + 100)
        XCTAssertEqual(try sqlite("SELECT taken_at FROM database_sizes"), "\(hour)")
        XCTAssertGreaterThan(try XCTUnwrap(try store.databaseSizeADayBefore(hour + 86_400)).bytes, 0, "the size measured")

        // The hour is recorded: the next ticks in it neither measure nor write (a sample taken
        // away behind the sampler's back stays away).
        try sqlite("DELETE FROM database_sizes")
        try sampler.sampleIfDue(now: hour + 160)
        try sampler.sampleIfDue(now: hour + 3_599)
        XCTAssertEqual(try sqlite("SELECT count(*) FROM database_sizes"), "0")

        // The next hour's write fails: its next tick tries again.
        try sqlite("ALTER TABLE database_sizes RENAME TO database_sizes_away")
        XCTAssertThrowsError(try sampler.sampleIfDue(now: hour + 3_600))
        try sqlite("ALTER TABLE database_sizes_away RENAME TO database_sizes")
        try sampler.sampleIfDue(now: hour + 3_660)
        XCTAssertEqual(try sqlite("SELECT taken_at FROM database_sizes"), "\(hour + 3_600)")
    }

    /// Runs `statement` with the sqlite3 shell, as an operator would: its output, trimmed.
    @discardableResult
    func sqlite(_ statement: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, statement]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, errorText)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
