import XCTest

@testable import PushDelivery

/// Requests share a connection by origin (scheme, host, port) and identity.
final class ConnectionKeyTests: XCTestCase {
    func testTheOriginEndsWhereThePathQueryOrFragmentStarts() {
        XCTAssertEqual(ConnectionKey.origin(of: "https://api.push.apple.com/3/device/abc"), "https://api.push.apple.com")
        XCTAssertEqual(ConnectionKey.origin(of: "https://127.0.0.1:8443/3/device/abc"), "https://127.0.0.1:8443")
        XCTAssertEqual(ConnectionKey.origin(of: "https://[::1]:8443/x"), "https://[::1]:8443")
        XCTAssertEqual(ConnectionKey.origin(of: "https://push.example?x=1"), "https://push.example")
        XCTAssertEqual(ConnectionKey.origin(of: "https://push.example#part"), "https://push.example")
        XCTAssertEqual(ConnectionKey.origin(of: "https://push.example"), "https://push.example")
        XCTAssertEqual(ConnectionKey.origin(of: "https://bücher.example/ü"), "https://bücher.example")
    }

    func testAMalformedURLKeysAsAWhole() {
        XCTAssertEqual(ConnectionKey.origin(of: "push.example/3/device"), "push.example/3/device")
        XCTAssertEqual(ConnectionKey.origin(of: "mailto:someone"), "mailto:someone")
        XCTAssertEqual(ConnectionKey.origin(of: ""), "")
        // The first "://" decides, as after a colon that starts no authority.
        XCTAssertEqual(ConnectionKey.origin(of: "x:y://host/p"), "x:y://host")
        XCTAssertEqual(ConnectionKey.origin(of: "https:/"), "https:/")
        XCTAssertEqual(ConnectionKey.origin(of: "https://"), "https://")
    }
}
