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

    /// The keys each parsed their own way before `Setting.parsed`: their refusals say what was
    /// expected in the same words, an empty value unsets the optional ones, and each shows its
    /// value as before.
    func testParsedKeysRefuseAndShowTheirValuesAsBefore() throws {
        let refusals: [(String, String, String)] = [
            ("PUSHGATE_LISTEN", "nowhere", "an IPv4 address and a port, such as 10.0.0.5:9000"),
            (
                "PUSHGATE_FASTCGI_CLIENTS", "nginx",
                "IPv4 addresses or CIDR ranges separated by commas, such as 10.0.0.2,10.0.1.0/24"
            ),
            ("PUSHGATE_SOCKET_MODE", "0999", "an octal file mode such as 0660"),
            ("PUSHGATE_SOCKET_MODE", "01777", "an octal file mode such as 0660"),
            ("PUSHGATE_SOCKET_GROUP", "", "a group name or number, such as www-data"),
            ("PUSHGATE_SOCKET_GROUP", "two words", "a group name or number, such as www-data"),
            ("PUSHGATE_LOG_LEVEL", "loud", "one of trace, debug, info, notice, warning, error, critical"),
            ("PUSHGATE_DB", "", "a non-empty value"),
            ("PUSHGATE_THREADS", "0", "a whole number from 1 to 512"),
            ("PUSHGATE_DB_SYNCHRONOUS", "half", "one of normal, full"),
        ]
        for (key, value, expected) in refusals {
            XCTAssertThrowsError(try Configuration.load(file: nil, environment: [key: value]), "\(key)=\(value)") { error in
                XCTAssertEqual(error as? ConfigurationError, .invalid(key: key, value: value, expected: expected))
            }
        }
        // A parser that throws has its reason added after what was expected.
        let thrown = [
            ("PUSHGATE_WEBPUSH_ENDPOINTS", "http://push.example", "https://host[:port] origins separated by commas ("),
            (
                "PUSHGATE_MATRIX_HOMESERVERS", "not-an-address",
                "IP addresses or CIDR ranges separated by commas, such as 10.0.0.5,192.168.1.0/24 ("
            ),
        ]
        for (key, value, start) in thrown {
            XCTAssertThrowsError(try Configuration.load(file: nil, environment: [key: value]), key) { error in
                guard case .invalid(key, value, let expected) = error as? ConfigurationError else {
                    return XCTFail("\(error)")
                }
                XCTAssertTrue(expected.hasPrefix(start) && expected.hasSuffix(")"), expected)
            }
        }

        let (set, _) = try Configuration.load(
            file: nil,
            environment: [
                "PUSHGATE_LISTEN": "127.0.0.1:9000", "PUSHGATE_FASTCGI_CLIENTS": "10.0.0.2", "PUSHGATE_SOCKET_MODE": "0640",
                "PUSHGATE_SOCKET_GROUP": "www-data", "PUSHGATE_LOG_LEVEL": "DEBUG", "PUSHGATE_FCM_SENDER_ID": "42",
            ])
        XCTAssertEqual(set.socketMode, 0o640)
        XCTAssertEqual(set.socketGroup, "www-data")
        XCTAssertEqual(set.logLevel, .debug)
        XCTAssertEqual(set.fcmSenderID, "42")
        let shown = Dictionary(uniqueKeysWithValues: set.summary.map { ($0.name, $0.value) })
        XCTAssertEqual(shown["PUSHGATE_LISTEN"], "127.0.0.1:9000")
        XCTAssertEqual(shown["PUSHGATE_FASTCGI_CLIENTS"], "10.0.0.2")
        XCTAssertEqual(shown["PUSHGATE_SOCKET_MODE"], "0640")
        XCTAssertEqual(shown["PUSHGATE_SOCKET_GROUP"], "www-data")
        XCTAssertEqual(shown["PUSHGATE_LOG_LEVEL"], "debug")
        XCTAssertEqual(shown["PUSHGATE_FCM_SENDER_ID"], "42")

        let (unset, _) = try Configuration.load(
            file: nil,
            environment: [
                "PUSHGATE_LISTEN": "", "PUSHGATE_FASTCGI_CLIENTS": "", "PUSHGATE_DATABASE_URL": "",
                "PUSHGATE_FCM_SENDER_ID": "",
            ])
        XCTAssertNil(unset.listen)
        XCTAssertNil(unset.fastCGIClients)
        XCTAssertNil(unset.databaseURL)
        XCTAssertNil(unset.fcmSenderID)
        let shownUnset = Dictionary(uniqueKeysWithValues: unset.summary.map { ($0.name, $0.value) })
        for key in ["PUSHGATE_LISTEN", "PUSHGATE_FASTCGI_CLIENTS", "PUSHGATE_DATABASE_URL", "PUSHGATE_SOCKET_GROUP"] {
            XCTAssertEqual(shownUnset[key], "(unset)", key)
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
