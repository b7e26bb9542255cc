import PushCore
import XCTest

/// Control characters from callers never break or colour a log line.
final class LogTextTests: XCTestCase {
    func testControlCharactersAreEscaped() {
        XCTAssertEqual(LogText.escaped("a\nb\r\u{1B}[31mc\u{7F}"), "a\\x0ab\\x0d\\x1b[31mc\\x7f")
        XCTAssertEqual(LogText.escaped("tab\there"), "tab\\x09here")
    }

    func testPlainTextIsUnchanged() {
        XCTAssertEqual(
            LogText.escaped("GET /token/ 200 0.10 ms: ünïcode \\ ok"), "GET /token/ 200 0.10 ms: ünïcode \\ ok")
    }
}
