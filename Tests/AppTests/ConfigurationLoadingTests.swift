@testable import App
import Logging
import XCTest

/// How an operator's settings become a `Configuration`: the file, the environment over it,
/// and the errors and warnings that name what is wrong.
final class ConfigurationLoadingTests: XCTestCase {
    private func file(_ text: String) throws -> ConfigurationFile {
        try ConfigurationFile(path: "/etc/pushgate/pushgate.conf", text: text)
    }

    func testDefaultsWithNothingSet() throws {
        let (configuration, warnings) = try Configuration.load(file: nil, environment: [:])
        XCTAssertEqual(configuration.database, "var/pushgate.sqlite")
        XCTAssertNil(configuration.databaseURL)
        XCTAssertEqual(configuration.socketMode, 0o660)
        XCTAssertEqual(configuration.logLevel, .info)
        XCTAssertEqual(warnings, [])
    }

    /// The two lanes that wait on the upstreams share what the engine carries: Matrix a
    /// quarter, pnm2 the rest, so that together they never fill the engine's queue.
    func testParkedPushesDefaultToWhatTheDeliveryEngineCarries() throws {
        let defaults = try Configuration.load(file: nil, environment: [:]).0
        XCTAssertEqual(defaults.matrixParkedPushLimit, 500, "a quarter of two engine threads' 1,000 transfers")
        XCTAssertEqual(defaults.parkedPushLimit, 1500, "the rest")
        let threeThreads = try Configuration.load(file: nil, environment: ["PUSHGATE_DELIVERY_THREADS": "3"]).0
        XCTAssertEqual(threeThreads.matrixParkedPushLimit, 750)
        XCTAssertEqual(threeThreads.parkedPushLimit, 2250)
        let matrixSet = try Configuration.load(file: nil, environment: ["PUSHGATE_MATRIX_LANE_PARKED_PUSHES": "200"]).0
        XCTAssertEqual(matrixSet.matrixParkedPushLimit, 200)
        XCTAssertEqual(matrixSet.parkedPushLimit, 1800, "pnm2 gets what Matrix leaves")
        let set = try Configuration.load(
            file: nil, environment: ["PUSHGATE_UPSTREAM_LANE_PARKED_PUSHES": "40000", "PUSHGATE_DELIVERY_THREADS": "3"]
        ).0
        XCTAssertEqual(set.parkedPushLimit, 40000, "a bound set is the bound")
    }

    func testResponderThreadsDefaultByDatabaseUnlessSet() throws {
        let sqlite = try Configuration.load(file: nil, environment: [:]).0
        XCTAssertEqual(sqlite.threads, 24)
        let postgresql = try Configuration.load(
            file: nil, environment: ["PUSHGATE_DATABASE_URL": "postgresql://pushgate@db.example/pushgate"]
        ).0
        XCTAssertEqual(postgresql.threads, 64, "a node's report batches are bounded by its threads")
        let set = try Configuration.load(
            file: try file("PUSHGATE_THREADS = 16\n"),
            environment: ["PUSHGATE_DATABASE_URL": "postgresql://pushgate@db.example/pushgate"]
        ).0
        XCTAssertEqual(set.threads, 16, "a count set is the count, whatever the database")
        let emptyURL = try Configuration.load(file: nil, environment: ["PUSHGATE_DATABASE_URL": ""]).0
        XCTAssertEqual(emptyURL.threads, 24, "an empty URL is SQLite")
    }

    func testTheEnvironmentWinsOverTheFile() throws {
        let settings = try file(
            """
            # a comment, then a blank line

            PUSHGATE_DB = /var/lib/pushgate/a.sqlite
            PUSHGATE_THREADS = 8
            PUSHGATE_LOG_LEVEL = "debug"
            """)
        let (configuration, warnings) = try Configuration.load(
            file: settings, environment: ["PUSHGATE_THREADS": "12", "HOME": "/root"])
        XCTAssertEqual(configuration.database, "/var/lib/pushgate/a.sqlite")
        XCTAssertEqual(configuration.threads, 12)
        XCTAssertEqual(configuration.logLevel, .debug, "double quotes around a value are not part of it")
        XCTAssertEqual(warnings, [])
    }

    func testUnknownAndRetiredKeysWarnWithWhereTheyAre() throws {
        let settings = try file("PUSHGATE_DB = x.sqlite\nPUSHGATE_THREDS = 4\nPUSHGATE_SQL_DIR = sql\n")
        let (_, warnings) = try Configuration.load(
            file: settings, environment: ["PUSHGATE_SOKET": "/tmp/s", "PUSHGATE_CONFIG": "/etc/pushgate/pushgate.conf"])
        XCTAssertEqual(
            warnings,
            [
                "/etc/pushgate/pushgate.conf:2: unknown key PUSHGATE_THREDS ignored",
                "/etc/pushgate/pushgate.conf:3: PUSHGATE_SQL_DIR is no longer used (the schema migrations are built into pushgate): remove it",
                "unknown environment variable PUSHGATE_SOKET ignored",
            ])
    }

    func testTheScriptsOwnVariablesDrawNoWarningButTheirNeighboursDo() throws {
        let environment = [
            "PUSHGATE_NGINX_USER": "www-data", "PUSHGATE_NGINX_WORKERS": "2", "PUSHGATE_RESPONDERS": "2",
            "PUSHGATE_BIN": "/usr/local/bin/pushgate", "PUSHGATE_BENCH_RECORD": "/tmp/r.json",
            "PUSHGATE_CONFIG": "/etc/pushgate/pushgate.conf",
            // One letter off a script's variable, or under no script's prefix: a typo as any other.
            "PUSHGATE_RESPONDER": "2", "PUSHGATE_NGINX": "x",
        ]
        let (_, warnings) = try Configuration.load(file: nil, environment: environment)
        XCTAssertEqual(
            warnings,
            [
                "unknown environment variable PUSHGATE_NGINX ignored",
                "unknown environment variable PUSHGATE_RESPONDER ignored",
            ])
        for setting in Configuration.settings {
            XCTAssertFalse(Configuration.isScriptVariable(setting.name), "\(setting.name) is a setting")
        }
    }

    func testAWrongValueStopsLoadingAndNamesTheKey() {
        let cases: [(String, String)] = [
            ("PUSHGATE_THREADS", "lots"),
            ("PUSHGATE_THREADS", "0"),
            ("PUSHGATE_LOG_LEVEL", "loud"),
            ("PUSHGATE_HTTP_PORT", "70000"),
        ]
        for (key, value) in cases {
            XCTAssertThrowsError(try Configuration.load(file: nil, environment: [key: value]), "\(key)=\(value)") { error in
                guard case .invalid(let named, let shown, _) = error as? ConfigurationError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(named, key)
                XCTAssertEqual(shown, value)
            }
        }
    }

    func testAMalformedLineIsNamedByItsNumber() {
        for text in ["PUSHGATE_DB = a\njust words\n", "= value\n", "TWO WORDS = x\n"] {
            XCTAssertThrowsError(try file(text), text) { error in
                guard case .malformedLine(_, let line) = error as? ConfigurationError else { return XCTFail("\(error)") }
                XCTAssertEqual(line, text.hasPrefix("PUSHGATE_DB") ? 2 : 1, text)
            }
        }
    }

    func testEveryKeyShowsItsValueAndTheDatabasePasswordNever() throws {
        let (configuration, _) = try Configuration.load(
            file: nil, environment: ["PUSHGATE_DATABASE_URL": "postgresql://pushgate:hunter2@db.example.net/pushgate"])
        let shown = Dictionary(uniqueKeysWithValues: configuration.summary.map { ($0.name, $0.value) })
        XCTAssertEqual(Set(shown.keys), Set(Configuration.settings.map(\.name)), "every setting is shown")
        XCTAssertEqual(shown["PUSHGATE_DATABASE_URL"], "user=pushgate password=*** dbname=pushgate host=db.example.net")
        XCTAssertFalse(configuration.summary.contains { $0.value.contains("hunter2") })
    }
}
