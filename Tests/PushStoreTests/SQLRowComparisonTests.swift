import XCTest

@testable import PushStore

/// A column compared with a value where the engine keeps it: equal only byte for byte, and
/// NULL equal to nothing, on both engines.
final class SQLRowComparisonTests: StoreTestCase {
    private func compare(in database: some SQLConnection) throws -> [Bool] {
        let sql = sql(
            sqlite: "SELECT 'abc', NULL, X'0102', '', X'', 'café'",
            postgresql: "SELECT 'abc', NULL, '\\x0102'::bytea, '', ''::bytea, 'café'")
        return try database.withStatement(sql) { row in
            XCTAssertTrue(try row.step())
            return [
                row.text(0, is: "abc"), !row.text(0, is: "ab"), !row.text(0, is: "abcd"), !row.text(0, is: "abd"),
                !row.text(1, is: ""), !row.text(1, is: "abc"),
                row.blob(2, is: [1, 2]), !row.blob(2, is: [1]), !row.blob(2, is: [1, 3]), !row.blob(1, is: []),
                row.text(3, is: ""), !row.text(3, is: "a"), row.blob(4, is: []), !row.blob(4, is: [0]),
                row.text(5, is: "café"), !row.text(5, is: "cafe\u{301}"),
            ]
        }
    }

    func testEqualOnlyByteForByte() throws {
        _ = try makeStore()
        let results = try compare(in: try openDatabase())
        XCTAssertEqual(results, Array(repeating: true, count: results.count))
    }
}
