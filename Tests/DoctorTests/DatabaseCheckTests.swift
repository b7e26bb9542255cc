@testable import App
import Foundation
@testable import PushStore
import XCTest

/// The database verdicts: missing, unmigrated, behind, not a database, current.
final class DatabaseCheckTests: ScratchDirectoryTestCase {
    private var path: String { scratch.file("pushgate.sqlite") }

    private func check() -> DatabaseCheck.Outcome {
        DatabaseCheck(path: path, migrations: Result { try Migration.builtIn(for: .sqlite) }, busyTimeoutMilliseconds: 1000).run()
    }

    func testAMissingDatabaseIsAProblemAndIsNotCreated() {
        let outcome = check()
        XCTAssertEqual(outcome.findings.map(\.verdict), [.problem])
        XCTAssertTrue(outcome.findings[0].message.contains("does not exist: run `pushgate migrate`"), "\(outcome.findings)")
        XCTAssertFalse(outcome.isUsable)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "doctor must not create the database")
    }

    func testAnUnmigratedDatabaseIsAProblem() throws {
        _ = try Database(path: path)
        let outcome = check()
        XCTAssertFalse(outcome.isUsable)
        XCTAssertTrue(outcome.findings.contains { $0.verdict == .problem && $0.message.contains("is not migrated") }, "\(outcome.findings)")
        XCTAssertNil(outcome.latestRecordedTime)
    }

    func testAMigrationNotAppliedYetIsNamed() throws {
        // Migrated by the previous version: every migration but the newest.
        let older = scratch.url.appendingPathComponent("sql-older")
        try FileManager.default.createDirectory(at: older, withIntermediateDirectories: true)
        let all = try Migration.builtIn(for: .sqlite)
        for migration in all.dropLast() {
            try migration.sql.write(to: older.appendingPathComponent(migration.fileName), atomically: true, encoding: .utf8)
        }
        try SQLiteStore(path: path).migrate(directory: older)
        let outcome = check()
        XCTAssertFalse(outcome.isUsable)
        let newest = all.last!.fileName
        XCTAssertTrue(
            outcome.findings.contains {
                $0.verdict == .problem && $0.message.contains("1 migration(s) not applied (\(newest))") && $0.message.contains("pushgate migrate")
            }, "\(outcome.findings)")
        XCTAssertNotNil(outcome.latestRecordedTime)
    }

    func testACurrentDatabaseIsUsableAndWritable() throws {
        try SQLiteStore(path: path).migrate()
        let outcome = check()
        XCTAssertTrue(outcome.isUsable, "\(outcome.findings)")
        XCTAssertEqual(outcome.findings.map(\.verdict), [.ok, .ok], "\(outcome.findings)")
        XCTAssertTrue(outcome.findings[1].message.contains("writable"))
        let applied = try XCTUnwrap(outcome.latestRecordedTime)
        XCTAssertLessThanOrEqual(abs(applied - Int64(Date().timeIntervalSince1970)), 3600)
    }

    func testAFileThatIsNoDatabaseIsAProblem() throws {
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let outcome = check()
        XCTAssertFalse(outcome.isUsable)
        XCTAssertTrue(outcome.findings.allSatisfy { $0.verdict == .problem }, "\(outcome.findings)")
    }

    func testUnusableMigrationsAreAProblem() throws {
        try SQLiteStore(path: path).migrate()
        let outcome = DatabaseCheck(
            path: path, migrations: .failure(MigrationError.gap(expected: 2, found: "0003_x.sql")),
            busyTimeoutMilliseconds: 1000
        ).run()
        XCTAssertFalse(outcome.isUsable)
        XCTAssertTrue(outcome.findings.contains { $0.subject == "migrations" && $0.verdict == .problem }, "\(outcome.findings)")
    }

    func testACompanionFileOfAnotherOwnerIsAProblem() throws {
        try SQLiteStore(path: path).migrate()
        // What `pushgate …` run as root leaves beside a service user's database.
        FileManager.default.createFile(atPath: path + "-shm", contents: Data())
        chown(path, 65534, 65534)
        let outcome = check()
        XCTAssertTrue(
            outcome.findings.contains { $0.verdict == .problem && $0.message.contains("\(path)-shm belongs to root") },
            "\(outcome.findings)")
        // And doctor itself runs as another user than the database's owner.
        XCTAssertTrue(
            outcome.findings.contains {
                $0.verdict == .warning && $0.message.contains("doctor runs as root, the database belongs to nobody")
            }, "\(outcome.findings)")
    }
}
