import Foundation
import XCTest

@testable import PushStore

/// What the connection string says wins over pushgate's defaults (application_name,
/// connect_timeout, keepalives), but not over the client encoding the store relies on; a
/// multi-host URL reaches libpq whole (MultiHostFailoverTests runs one against two servers).
final class PostgreSQLConnectionSettingsTests: StoreTestCase {
    private func show(_ setting: String, on connection: PostgreSQLConnection) throws -> String? {
        try connection.withStatement("SHOW \(setting)") { row in try row.step() ? row.string(0) : nil }
    }

    private func url(adding parameters: String) throws -> String {
        let base = try XCTUnwrap(Self.postgreSQLURL)
        return base + (base.contains("?") ? "&" : "?") + parameters
    }

    func testTheURLsSettingsOverrideTheDefaultsButNotTheEncoding() throws {
        try XCTSkipIf(Self.engine != .postgresql, "needs PUSHGATE_TEST_DATABASE_URL")
        let plain = try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: try XCTUnwrap(Self.postgreSQLURL)))
        XCTAssertEqual(try show("application_name", on: plain), "pushgate")

        let own = try PostgreSQLConnection(
            configuration: PostgreSQLConfiguration(
                url: try url(adding: "application_name=node-a&connect_timeout=3&client_encoding=LATIN1")))
        XCTAssertEqual(try show("application_name", on: own), "node-a")
        XCTAssertEqual(try show("client_encoding", on: own), "UTF8")
    }

    /// A host list whose first host has no server: libpq goes on to the next one, within
    /// connect_timeout, and target_session_attrs=read-write accepts the writable one.
    func testAMultiHostURLSkipsAHostWithNoServer() throws {
        try XCTSkipIf(Self.engine != .postgresql, "needs PUSHGATE_TEST_DATABASE_URL")
        let base = try XCTUnwrap(Self.postgreSQLURL)
        guard let hostRange = base.range(of: #"host=[^&]+"#, options: .regularExpression) else {
            throw XCTSkip("the test URL names no host= parameter: \(base)")
        }
        let host = String(base[hostRange].dropFirst("host=".count))
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("no-server-\(UUID().uuidString.prefix(8))").path
        let multiHost = base.replacingCharacters(in: hostRange, with: "host=\(nowhere),\(host)")
            + "&target_session_attrs=read-write&connect_timeout=5"
        let connection = try PostgreSQLConnection(configuration: PostgreSQLConfiguration(url: multiHost))
        XCTAssertEqual(try show("transaction_read_only", on: connection), "off")
        XCTAssertEqual(try show("unix_socket_directories", on: connection), host)
    }
}
