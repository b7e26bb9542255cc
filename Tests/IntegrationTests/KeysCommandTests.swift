import PushTesting
import XCTest

/// `pushgate keys …` as an operator runs it.
final class KeysCommandTests: XCTestCase, RunsOnPostgreSQL {
    func testAddPrintsTheKeyOnceListShowsNamesRevokeKeepsTheRecord() throws {
        let pushgate = try PushgateInstance()
        let empty = try pushgate.cli(["keys", "list"])
        XCTAssertEqual(empty.status, 0)
        XCTAssertTrue(empty.stdout.contains("only loopback"), empty.stdout)

        let added = try pushgate.cli(["keys", "add", "pbx-1"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(key.hasPrefix("pgk_"), key)
        XCTAssertTrue(added.stderr.contains("shown only now"), added.stderr)

        let list = try pushgate.cli(["keys", "list"])
        XCTAssertTrue(list.stdout.contains("pbx-1"), list.stdout)
        XCTAssertTrue(list.stdout.contains("valid"), list.stdout)
        XCTAssertFalse(list.stdout.contains(key), "the key itself is never shown again")

        let duplicate = try pushgate.cli(["keys", "add", "pbx-1"])
        XCTAssertEqual(duplicate.status, 1)
        XCTAssertTrue(duplicate.stderr.contains("already exists"), duplicate.stderr)
        XCTAssertNotEqual(try pushgate.cli(["keys", "add", "bad name!"]).status, 0)

        XCTAssertEqual(try pushgate.cli(["keys", "revoke", "pbx-1"]).status, 0)
        XCTAssertTrue(try pushgate.cli(["keys", "list"]).stdout.contains("revoked"))
        let again = try pushgate.cli(["keys", "revoke", "pbx-1"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("no valid sender key named pbx-1"), again.stderr)
    }

    /// Scopes as the operator gives and reads them: a key without --app says it reaches every
    /// app; bad scopes are refused before anything is stored.
    func testAddWithScopesAndListShowsThem() throws {
        let pushgate = try PushgateInstance()
        let scoped = try pushgate.cli([
            "keys", "add", "tenant-a", "--app", "com.example.a", "--app", "com.example.b", "--dialect", "pnm2",
            "--dialect", "bridge",
        ])
        XCTAssertEqual(scoped.status, 0, scoped.stderr)
        XCTAssertTrue(scoped.stderr.contains("no app com.example.a is registered"), scoped.stderr)
        XCTAssertEqual(try pushgate.cli(["keys", "add", "prometheus", "--operator"]).status, 0)
        XCTAssertEqual(try pushgate.cli(["keys", "add", "legacy"]).status, 0)
        XCTAssertEqual(try pushgate.cli(["keys", "add", "ops-pbx", "--operator", "--dialect", "pnm2"]).status, 0)

        let list = try pushgate.cli(["keys", "list"]).stdout
        let lines = Dictionary(
            uniqueKeysWithValues: list.split(separator: "\n").map { (String($0.prefix { $0 != "\t" }), String($0)) })
        XCTAssertTrue(
            lines["tenant-a"]?.hasSuffix(
                "\tsends: apps com.example.a,com.example.b; dialects bridge,pnm2\tverifies no Beams tokens (beams is not in its scope)")
                ?? false, list)
        // --operator alone: the pages, nothing sent, no Beams token signed.
        XCTAssertTrue(
            lines["prometheus"]?.hasSuffix(
                "\tsends nothing; reads /metrics and /status\tverifies no Beams tokens (beams is not in its scope)") ?? false,
            list)
        XCTAssertTrue(
            lines["ops-pbx"]?.hasSuffix("\tsends: every app; dialects pnm2; reads /metrics and /status\tverifies no Beams tokens (beams is not in its scope)") ?? false, list)
        XCTAssertTrue(lines["legacy"]?.hasSuffix("\tsends: every app; every dialect\tverifies Beams tokens") ?? false, list)
        XCTAssertTrue(
            try pushgate.cli(["keys", "add", "scrape", "--operator"]).stderr.contains("(sends nothing; reads /metrics and /status)"))

        for bad in [["--app", "bad app!"], ["--dialect", "acrobits"], ["--dialect", ""]] {
            let refused = try pushgate.cli(["keys", "add", "refused"] + bad)
            XCTAssertNotEqual(refused.status, 0, "\(bad)")
            XCTAssertTrue(refused.stderr.contains(bad[0]), refused.stderr)
        }
        XCTAssertFalse(try pushgate.cli(["keys", "list"]).stdout.contains("refused"), "nothing stored")
    }
}
