import PushAPI
import XCTest

final class BridgeTopicsTests: XCTestCase {
    func selector(_ text: String) throws -> TopicSelector { try TopicSelector(parsing: text) }

    func testAListedPathAdmitsItselfAndWhatIsBelowItPartByPart() throws {
        let topics = try XCTUnwrap(BridgeTopics(configured: "news, /alerts/eu ,"))
        XCTAssertEqual(topics.prefixes?.map(\.text), ["news", "alerts/eu"])
        for admitted in ["news", ">news//", "news/sport/", "?alerts/eu/de", "alerts/eu"] {
            XCTAssertTrue(topics.admits(try selector(admitted)), admitted)
        }
        for refused in ["newsroom", "alerts", "alerts/", "alerts/us", ">sports//"] {
            XCTAssertFalse(topics.admits(try selector(refused)), refused)
        }
    }

    func testUnsetOrBlankAdmitsEverythingAndAnInvalidEntryIsRefused() throws {
        XCTAssertEqual(BridgeTopics(configured: nil), .unrestricted)
        XCTAssertEqual(BridgeTopics(configured: " , "), .unrestricted)
        XCTAssertTrue(BridgeTopics.unrestricted.admits(try selector("anything/at/all//")))
        XCTAssertNil(BridgeTopics(configured: "news,a//b"))
    }
}
