@testable import App
import Foundation
@testable import PushStore
import XCTest

/// The database is created private, and doctor fails one that other local users can read.
final class SecretFileModeTests: ScratchDirectoryTestCase {
    private var path: String { scratch.file("pushgate.sqlite") }

    private func mode(_ file: String) throws -> mode_t {
        var info = stat()
        guard stat(file, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return info.st_mode & 0o777
    }

    private func check() -> DatabaseCheck.Outcome {
        DatabaseCheck(path: path, migrations: Result { try Migration.builtIn(for: .sqlite) }, busyTimeoutMilliseconds: 1000).run()
    }

    func testTheDatabaseAndItsWALFilesAreCreated0600WhateverTheUmask() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let store = try SQLiteStore(path: path)
        try store.migrate()
        try withExtendedLifetime(store) {
            for file in [path, path + "-wal", path + "-shm"] {
                XCTAssertEqual(try mode(file), 0o600, file)
            }
        }
        XCTAssertTrue(check().findings.allSatisfy { $0.verdict == .ok }, "\(check().findings)")
    }

    func testADatabaseOthersCanReadFailsAndAGroupReadableOneWarns() throws {
        try SQLiteStore(path: path).migrate()
        chmod(path, 0o644)
        let open = check().findings.filter { $0.verdict == .problem }
        XCTAssertEqual(open.count, 1, "\(open)")
        XCTAssertTrue(open[0].message.contains("has mode 644") && open[0].message.contains("chmod 600 \(path)"), open[0].message)

        chmod(path, 0o640)
        let findings = check().findings
        XCTAssertFalse(findings.contains { $0.verdict == .problem }, "\(findings)")
        XCTAssertTrue(findings.contains { $0.verdict == .warning && $0.message.contains("its group can read") }, "\(findings)")
    }

    func testAnExistingDatabaseKeepsItsModeAndIsNotTruncated() throws {
        try SQLiteStore(path: path).migrate()
        chmod(path, 0o640)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        _ = try Database(path: path)
        XCTAssertEqual(try mode(path), 0o640)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size)
    }
}

/// A PostgreSQL connection string as libpq reads it: shown without its password, and checked
/// for TLS when it leads to another host.
final class PostgreSQLConnectionStringTests: XCTestCase {
    func testThePasswordIsHiddenInEverySpelling() {
        let cases = [
            "postgresql://u:pw1@h/db",
            "postgres://u@h/db?password=pw1",
            "postgresql://u@h/db?%70assword=pw1",
            "postgresql://u:pw1@h1:5432,h2:5433/db?target_session_attrs=read-write",
            "host=h user=u password=pw1",
            "host=h user=u password = 'pw1 with spaces'",
            "host=h user=u PASSWORD=pw1",  // not a keyword libpq knows: unparseable, not shown
        ]
        for text in cases {
            let shown = PostgreSQLConnectionString(text).redacted
            XCTAssertFalse(shown.contains("pw1"), "\(text) → \(shown)")
        }
        XCTAssertEqual(PostgreSQLConnectionString("postgresql://u:pw1@h/db").redacted, "user=u password=*** dbname=db host=h")
        XCTAssertEqual(
            PostgreSQLConnectionString("host=h application_name='a b'").redacted, "host=h application_name='a b'")
    }

    func testRemoteHostsWithoutVerifiedTLSWarn() {
        let local = ["host=/run/postgresql", "postgresql://u@localhost/db", "host=127.0.0.1", "dbname=pushgate"]
        for text in local {
            XCTAssertEqual(PostgreSQLCheck.transportFindings(PostgreSQLConnectionString(text)).count, 0, text)
        }
        let unverified = ["postgresql://u@db.example.net/db", "host=10.0.0.5 sslmode=require", "postgresql://u@localhost,db2.example.net/db"]
        for text in unverified {
            let findings = PostgreSQLCheck.transportFindings(PostgreSQLConnectionString(text))
            XCTAssertEqual(findings.map(\.verdict), [.warning], text)
            XCTAssertTrue(findings[0].message.contains("sslmode=verify-full"), findings[0].message)
        }
        let verified = PostgreSQLCheck.transportFindings(PostgreSQLConnectionString("postgresql://u@db.example.net/db?sslmode=verify-full"))
        XCTAssertEqual(verified.map(\.verdict), [.ok])
    }
}
