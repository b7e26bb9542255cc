import XCTest

@testable import FastCGI

final class TCPListenAddressTests: XCTestCase {
    func testAnIPv4AddressAndAPort() throws {
        let address = try XCTUnwrap(TCPListenAddress("10.0.0.5:9000"))
        XCTAssertEqual(address.host, "10.0.0.5")
        XCTAssertEqual(address.port, 9000)
        XCTAssertEqual(address.description, "10.0.0.5:9000")
        XCTAssertFalse(address.isLoopback)
        XCTAssertTrue(try XCTUnwrap(TCPListenAddress("127.0.0.1:1")).isLoopback)
        XCTAssertFalse(try XCTUnwrap(TCPListenAddress("0.0.0.0:65535")).isLoopback, "every interface")
    }

    func testRefusesWhatLibfcgiWouldReadOtherwise() {
        for text in [
            "", "9000", ":9000", "10.0.0.5", "10.0.0.5:", "10.0.0.5:0", "10.0.0.5:65536", "10.0.0.5:-1",
            "10.0.0.5:+80", "10.0.0.5:9000 ", " 10.0.0.5:9000", "10.0.0.256:9000", "10.0.0:9000",
            "localhost:9000", "pushgate.example:9000", "[::1]:9000", "::1:9000", "/run/pushgate.sock",
            "10.0.0.5:١٢٣", "10.0.0.5:000009000",
        ] {
            XCTAssertNil(TCPListenAddress(text), text)
        }
    }
}
