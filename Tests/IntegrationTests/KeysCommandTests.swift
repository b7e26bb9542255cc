import XCTest

/// `pushgate keys …` as an operator runs it.
final class KeysCommandTests: XCTestCase {
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
}
