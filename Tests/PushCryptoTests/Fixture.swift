import Foundation
import XCTest

/// The committed test-only keys and files of `Fixtures/` (see its README).
enum Fixture {
    static var directory: URL {
        get throws {
            try XCTUnwrap(
                Bundle.module.url(forResource: "Fixtures", withExtension: nil), "Fixtures missing from the test bundle")
        }
    }

    static func url(_ name: String) throws -> URL {
        try directory.appendingPathComponent(name)
    }

    static func text(_ name: String) throws -> String {
        try String(contentsOf: url(name), encoding: .utf8)
    }
}

/// Asserts that `body` throws an error whose description is exactly `message`: the messages are
/// what operators read, so they are part of the contract.
func XCTAssertThrowsMessage<T>(
    _ body: @autoclosure () throws -> T, _ message: String, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        _ = try body()
        XCTFail("expected an error \"\(message)\", got none", file: file, line: line)
    } catch {
        XCTAssertEqual("\(error)", message, file: file, line: line)
    }
}
