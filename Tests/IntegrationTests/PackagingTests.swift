import Foundation
import PushTesting
import XCTest

/// `scripts/install` into a scratch root (DESTDIR), the staged binary migrating with the
/// migrations built into it, and the systemd unit as `systemd-analyze` judges it.
final class PackagingTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-stage-\(UUID().uuidString.prefix(8))")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    private func run(
        _ path: String, _ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil
    ) throws -> PushgateInstance.Output {
        try runCommand(path, arguments, environment: extra, in: directory ?? root.deletingLastPathComponent())
    }

    private func install(port: String = "8099") throws -> PushgateInstance.Output {
        try run(
            PushgateInstance.repository.appendingPathComponent("scripts/install").path, [],
            environment: ["DESTDIR": root.path, "PUSHGATE_BINARY": PushgateInstance.executable.path, "PUSHGATE_HTTP_PORT": port])
    }

    private func staged(_ path: String) -> String { root.path + path }

    private func mode(_ path: String) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: staged(path))[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    private func text(_ path: String) throws -> String { try String(contentsOfFile: staged(path), encoding: .utf8) }

    func testInstallIntoAScratchRoot() throws {
        let output = try install()
        XCTAssertEqual(output.status, 0, output.stderr)
        let expected: [(String, Int)] = [
            ("/usr/local/bin/pushgate", 0o755),
            ("/usr/local/share/pushgate/nginx/pushgate.conf", 0o644),
            ("/etc/systemd/system/pushgate.service", 0o644),
            ("/etc/systemd/system/pushgate.socket", 0o644),
            ("/etc/sysusers.d/pushgate.conf", 0o644),
            ("/etc/pushgate/pushgate.conf", 0o640),
            ("/etc/nginx/conf.d/pushgate.conf", 0o644),
        ]
        for (path, wanted) in expected {
            XCTAssertEqual(try mode(path), wanted, "mode of \(path)")
        }
        // The migrations are inside the binary: no folder of them is installed.
        XCTAssertFalse(FileManager.default.fileExists(atPath: staged("/usr/local/share/pushgate/sql")))

        let unit = try text("/etc/systemd/system/pushgate.service")
        XCTAssertTrue(unit.contains("ExecStart=/usr/local/bin/pushgate serve\n"), unit)
        XCTAssertTrue(unit.contains("Environment=PUSHGATE_CONFIG=/etc/pushgate/pushgate.conf\n"), unit)
        XCTAssertTrue(unit.contains("Requires=pushgate.socket\n"), unit)
        // systemd listens where nginx's site include connects, as serve's config names it.
        let socketUnit = try text("/etc/systemd/system/pushgate.socket")
        XCTAssertTrue(socketUnit.contains("ListenStream=/run/pushgate/pushgate.sock\n"), socketUnit)
        XCTAssertTrue(socketUnit.contains("SocketMode=0660\n"), socketUnit)
        let config = try text("/etc/pushgate/pushgate.conf")
        XCTAssertFalse(config.contains("PUSHGATE_SQL_DIR"), config)
        XCTAssertTrue(config.contains("PUSHGATE_SOCKET = /run/pushgate/pushgate.sock\n"), config)
        let site = try text("/etc/nginx/conf.d/pushgate.conf")
        XCTAssertTrue(site.contains("server unix:/run/pushgate/pushgate.sock;"), site)
        XCTAssertTrue(site.contains("listen 127.0.0.1:8099;"), site)
        XCTAssertFalse(site.contains("@PUSHGATE_"), "a placeholder left unrendered")
        XCTAssertTrue(try text("/etc/sysusers.d/pushgate.conf").contains("m www-data pushgate"))
    }

    func testTheInstalledBinaryMigratesAndTheConfigParses() throws {
        XCTAssertEqual(try install().status, 0)
        let database = root.appendingPathComponent("pushgate.sqlite").path
        // The staged config, with the database moved into the scratch root.
        let migrate = try run(
            staged("/usr/local/bin/pushgate"), ["migrate"],
            environment: ["PUSHGATE_CONFIG": staged("/etc/pushgate/pushgate.conf"), "PUSHGATE_DB": database])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)
        XCTAssertTrue(migrate.stdout.contains("applied 0001_initial.sql"), migrate.stdout)
        XCTAssertTrue(migrate.stderr.isEmpty, "the config has an unknown key: \(migrate.stderr)")

        // The staged doctor finds the template installed beside it and judges the staged site
        // include current; the socket does not exist here (no serve), which it says.
        let doctor = try run(
            staged("/usr/local/bin/pushgate"), ["doctor", "--nginx-conf", staged("/etc/nginx/conf.d/pushgate.conf")],
            environment: ["PUSHGATE_CONFIG": staged("/etc/pushgate/pushgate.conf"), "PUSHGATE_DB": database])
        XCTAssertEqual(doctor.status, 1, doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("ok   configuration: \(staged("/etc/pushgate/pushgate.conf")) parses"), doctor.stdout)
        XCTAssertTrue(
            doctor.stdout.contains("ok   database: \(database) opens; schema is current (\(sqlCount) migrations)"),
            doctor.stdout)
        XCTAssertTrue(
            doctor.stdout.contains(
                "ok   nginx: \(staged("/etc/nginx/conf.d/pushgate.conf")) matches this version's template and passes requests to /run/pushgate/pushgate.sock"),
            doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("FAIL socket: "), doctor.stdout)
    }

    private var sqlCount: Int { repositorySQLFiles.count }

    /// The installed site include is valid nginx: `nginx -t` with it in an `http { }` block.
    func testTheSiteIncludePassesNginxsOwnCheck() throws {
        XCTAssertEqual(try install().status, 0)
        let main = root.appendingPathComponent("nginx-main.conf")
        try """
            pid \(root.path)/nginx.pid;
            error_log \(root.path)/error.log;
            events {}
            http {
                include /etc/nginx/mime.types;
                client_body_temp_path \(root.path)/body;
                fastcgi_temp_path \(root.path)/fastcgi;
                include \(staged("/etc/nginx/conf.d/pushgate.conf"));
            }
            """.write(to: main, atomically: true, encoding: .utf8)
        let test = try run("/usr/sbin/nginx", ["-t", "-p", root.path + "/", "-c", main.path, "-e", root.appendingPathComponent("error.log").path])
        XCTAssertEqual(test.status, 0, test.stderr)
        XCTAssertTrue(test.stderr.contains("test is successful"), test.stderr)
    }

    func testASecondInstallKeepsTheConfigAndTheOldSiteInclude() throws {
        XCTAssertEqual(try install().status, 0)
        let config = staged("/etc/pushgate/pushgate.conf")
        try (try text("/etc/pushgate/pushgate.conf") + "PUSHGATE_THREADS = 8\n").write(toFile: config, atomically: true, encoding: .utf8)
        let again = try install(port: "8100")
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(try text("/etc/pushgate/pushgate.conf").hasSuffix("PUSHGATE_THREADS = 8\n"), "the operator's config was overwritten")
        XCTAssertTrue(try text("/etc/nginx/conf.d/pushgate.conf").contains("listen 127.0.0.1:8100;"))
        XCTAssertTrue(try text("/etc/nginx/conf.d/pushgate.conf.old").contains("listen 127.0.0.1:8099;"))
        XCTAssertTrue(again.stderr.contains("kept the previous /etc/nginx/conf.d/pushgate.conf"), again.stderr)

        let refused = try run(
            PushgateInstance.repository.appendingPathComponent("scripts/install").path, [],
            environment: ["DESTDIR": root.path, "PUSHGATE_BINARY": PushgateInstance.executable.path, "PUSHGATE_HTTP_PORT": "http"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("PUSHGATE_HTTP_PORT must be 1 to 65535"), refused.stderr)
    }

    /// `systemd-analyze verify` loads the unit as systemd would and names every unknown or
    /// malformed setting; `security --offline` scores its hardening.
    func testTheUnitVerifiesAndIsHardened() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw XCTSkip("systemd-analyze is not installed (scripts/test installs the systemd package)")
        }
        XCTAssertEqual(try install().status, 0)
        // verify checks that ExecStart's binary exists: point it at the staged one.
        let unit = try text("/etc/systemd/system/pushgate.service")
            .replacingOccurrences(of: "ExecStart=/usr/local/bin/pushgate", with: "ExecStart=\(staged("/usr/local/bin/pushgate"))")
        let folder = root.appendingPathComponent("verify")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("pushgate.service").path
        try unit.write(toFile: path, atomically: true, encoding: .utf8)
        // The socket unit beside it, which the service requires and verify loads with it.
        let socketPath = folder.appendingPathComponent("pushgate.socket").path
        try text("/etc/systemd/system/pushgate.socket").write(toFile: socketPath, atomically: true, encoding: .utf8)

        let verify = try run("/usr/bin/systemd-analyze", ["verify", path, socketPath])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(verify.stdout + verify.stderr, "", "systemd-analyze verify complained")
        let security = try run("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--threshold=20", path])
        XCTAssertEqual(security.status, 0, "exposure above 2.0:\n\(security.stdout)")

        // The same check does catch a mistake: a misspelt hardening option.
        try unit.replacingOccurrences(of: "ProtectSystem=strict", with: "ProtectSystm=strict").write(toFile: path, atomically: true, encoding: .utf8)
        let typo = try run("/usr/bin/systemd-analyze", ["verify", path])
        XCTAssertTrue(typo.stderr.contains("Unknown key 'ProtectSystm'"), typo.stderr)
        try unit.write(toFile: path, atomically: true, encoding: .utf8)
        let socketText = try String(contentsOfFile: socketPath, encoding: .utf8)
        try socketText.replacingOccurrences(of: "SocketMode=0660", with: "SocketMod=0660")
            .write(toFile: socketPath, atomically: true, encoding: .utf8)
        let socketTypo = try run("/usr/bin/systemd-analyze", ["verify", path, socketPath])
        XCTAssertTrue(socketTypo.stderr.contains("Unknown key 'SocketMod'"), socketTypo.stderr)
    }
}

/// The built binary copied alone, on both engines: the migrations are built in.
final class CopiedBinaryTests: XCTestCase, RunsOnPostgreSQL {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-copy-\(UUID().uuidString.prefix(8))")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: root)
    }

    private func run(
        _ path: String, _ arguments: [String], environment extra: [String: String] = [:], in directory: URL? = nil
    ) throws -> PushgateInstance.Output {
        try runCommand(path, arguments, environment: extra, in: directory ?? root.deletingLastPathComponent())
    }

    /// A copy of the built binary alone in an empty folder, no `sql/` beside it, above it or
    /// in the working directory, migrates a new SQLite database and, with
    /// PUSHGATE_TEST_DATABASE_URL set, a new PostgreSQL schema: the migrations are built in.
    func testACopiedBinaryMigratesWithNoSQLFolderAnywhere() throws {
        let folder = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let binary = folder.appendingPathComponent("pushgate")
        try FileManager.default.copyItem(at: PushgateInstance.executable, to: binary)
        var directory = folder
        while directory.path != "/" {
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.appendingPathComponent("sql").path), directory.path)
            directory.deleteLastPathComponent()
        }
        let expected = repositorySQLFiles.map { "applied \($0)" }

        let database = folder.appendingPathComponent("pushgate.sqlite").path
        let sqlite = try run(binary.path, ["migrate"], environment: ["PUSHGATE_DB": database], in: folder)
        XCTAssertEqual(sqlite.status, 0, sqlite.stderr)
        XCTAssertEqual(sqlite.stdout.split(separator: "\n").map(String.init), expected)
        let again = try run(binary.path, ["migrate"], environment: ["PUSHGATE_DB": database], in: folder)
        XCTAssertTrue(again.stdout.hasPrefix("schema is up to date"), again.stdout + again.stderr)

        guard let url = ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"], !url.isEmpty else {
            throw XCTSkip("the PostgreSQL half needs PUSHGATE_TEST_DATABASE_URL (scripts/test sets it)")
        }
        let schema = "copied_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let create = try run("/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "CREATE SCHEMA \(schema)"])
        XCTAssertEqual(create.status, 0, create.stderr)
        defer { _ = try? run("/usr/bin/psql", ["-X", "-q", url, "-c", "DROP SCHEMA IF EXISTS \(schema) CASCADE"]) }
        let schemaURL = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
        let postgresql = try run(binary.path, ["migrate"], environment: ["PUSHGATE_DATABASE_URL": schemaURL], in: folder)
        XCTAssertEqual(postgresql.status, 0, postgresql.stderr)
        XCTAssertEqual(postgresql.stdout.split(separator: "\n").map(String.init), expected)
        let tables = try run(
            "/usr/bin/psql", ["-X", "-A", "-t", url, "-c", "SELECT count(*) FROM information_schema.tables WHERE table_schema = '\(schema)'"])
        XCTAssertGreaterThan(Int(tables.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 10, tables.stdout + tables.stderr)
    }
}

/// The repository's SQLite migrations, by name.
private var repositorySQLFiles: [String] {
    let directory = PushgateInstance.repository.appendingPathComponent("sql/sqlite")
    return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
        .filter { $0.hasSuffix(".sql") }.sorted()
}

/// Runs a command with the test's environment less pushgate's settings, plus `extra`.
private func runCommand(
    _ path: String, _ arguments: [String], environment extra: [String: String], in directory: URL
) throws -> PushgateInstance.Output {
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
    for (key, value) in extra { environment[key] = value }
    return try .of(path, arguments, environment: environment, in: directory)
}
