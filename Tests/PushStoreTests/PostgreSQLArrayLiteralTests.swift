import XCTest

@testable import PushStore

/// The text form of the arrays a report batch binds: every element quoted, `"` and `\`
/// escaped (also next to multi-byte characters), NULL unquoted, bytea in its hex form. The
/// arrays' round trip through PostgreSQL is `PostgreSQLSetBasedReportTests`'.
final class PostgreSQLArrayLiteralTests: XCTestCase {
    func testTextElementsAreQuotedWithQuotesAndBackslashesEscaped() {
        XCTAssertEqual(PostgreSQLArrayLiteral.text([String]()), "{}")
        XCTAssertEqual(PostgreSQLArrayLiteral.text(["a"]), #"{"a"}"#)
        XCTAssertEqual(PostgreSQLArrayLiteral.text(["a", "", "b c"]), #"{"a","","b c"}"#)
        XCTAssertEqual(PostgreSQLArrayLiteral.text([#"say "hi""#, #"C:\dir"#]), #"{"say \"hi\"","C:\\dir"}"#)
        XCTAssertEqual(PostgreSQLArrayLiteral.text(["},{", "NULL"]), #"{"},{","NULL"}"#)
        XCTAssertEqual(PostgreSQLArrayLiteral.text(["é\"ü", "日本\\", "👍🏽"]), #"{"é\"ü","日本\\","👍🏽"}"#)
    }

    func testAMissingTextIsTheUnquotedNull() {
        XCTAssertEqual(PostgreSQLArrayLiteral.text([nil, "NULL", nil] as [String?]), #"{NULL,"NULL",NULL}"#)
        XCTAssertEqual(PostgreSQLArrayLiteral.text([String?]()), "{}")
    }

    func testIntegersAndBytea() {
        XCTAssertEqual(PostgreSQLArrayLiteral.integers([]), "{}")
        XCTAssertEqual(PostgreSQLArrayLiteral.integers([0, -1, Int64.max, Int64.min]), "{0,-1,9223372036854775807,-9223372036854775808}")
        XCTAssertEqual(PostgreSQLArrayLiteral.bytea([[0x0a, 0xff], [], [0x00]]), #"{"\\x0aff","\\x","\\x00"}"#)
    }
}
