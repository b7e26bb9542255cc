@testable import App
import Glibc
import Logging
import XCTest

/// The log line `serve` writes: one line per event, its metadata sorted by key, the request
/// id (kept apart from the other metadata) among them as any other key.
final class LineLogHandlerTests: XCTestCase {
    /// The lines `body` logs through a handler writing into a pipe.
    private func lines(_ body: (inout Logger) -> Void) throws -> [String] {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let handler = LineLogHandler(label: "pushgate", level: .info, fileDescriptor: ends[1])
        var logger = Logger(label: "pushgate") { _ in handler }
        body(&logger)
        close(ends[1])
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            guard count > 0 else { break }
            text += buffer[..<count]
        }
        return String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    func testTheRequestIDIsMetadataLikeAnyOther() throws {
        let logged = try lines { logger in
            logger[metadataKey: "zone"] = "z"
            logger[metadataKey: "request-id"] = "abc123"
            logger[metadataKey: "app"] = "com.example"
            XCTAssertEqual(logger[metadataKey: "request-id"], "abc123")
            XCTAssertEqual(logger.handler.metadata, ["zone": "z", "request-id": "abc123", "app": "com.example"])
            logger.info("pruned", metadata: ["device": "7"])
            logger.debug("not at this level")
            logger[metadataKey: "request-id"] = nil
            logger.warning("after")
        }
        XCTAssertEqual(logged.count, 2)
        XCTAssertTrue(
            logged[0].hasSuffix(" info pushgate: app=com.example device=7 request-id=abc123 zone=z [AppTests] pruned"),
            logged[0])
        XCTAssertTrue(logged[1].hasSuffix(" warning pushgate: app=com.example zone=z [AppTests] after"), logged[1])
    }

    func testSettingTheWholeMetadataKeepsTheRequestIDAmongIt() throws {
        let logged = try lines { logger in
            logger.handler.metadata = ["request-id": "r1", "b": "2"]
            XCTAssertEqual(logger[metadataKey: "request-id"], "r1")
            logger.info("one")
            logger.handler.metadata = ["b": "3"]
            XCTAssertNil(logger[metadataKey: "request-id"])
            logger.info("two")
        }
        XCTAssertEqual(logged.count, 2)
        XCTAssertTrue(logged[0].hasSuffix(" info pushgate: b=2 request-id=r1 [AppTests] one"), logged[0])
        XCTAssertTrue(logged[1].hasSuffix(" info pushgate: b=3 [AppTests] two"), logged[1])
    }
}
