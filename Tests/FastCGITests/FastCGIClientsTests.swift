import XCTest

@testable import FastCGI

/// `PUSHGATE_FASTCGI_CLIENTS` as read: IPv4 addresses and CIDR ranges, nothing else.
final class FastCGIClientsTests: XCTestCase {
    private func address(_ text: String) -> UInt32 {
        var value = in_addr()
        XCTAssertEqual(inet_pton(AF_INET, text, &value), 1)
        return UInt32(bigEndian: value.s_addr)
    }

    func testAddressesAndRangesAreAllowedAndNothingElse() throws {
        let clients = try XCTUnwrap(FastCGIClients(listing: "10.0.0.2, 192.168.4.0/22"))
        XCTAssertTrue(clients.allows(address("10.0.0.2")))
        XCTAssertFalse(clients.allows(address("10.0.0.3")))
        XCTAssertTrue(clients.allows(address("192.168.7.255")))
        XCTAssertFalse(clients.allows(address("192.168.8.0")))
        XCTAssertFalse(clients.allows(address("127.0.0.1")), "loopback only when listed")
        XCTAssertFalse(clients.isLoopbackOnly)
        XCTAssertEqual(clients.listing, "10.0.0.2, 192.168.4.0/22")
    }

    func testTheDefaultIsLoopback() {
        XCTAssertTrue(FastCGIClients.loopback.allows(address("127.0.0.2")))
        XCTAssertFalse(FastCGIClients.loopback.allows(address("10.0.0.2")))
        XCTAssertTrue(FastCGIClients.loopback.isLoopbackOnly)
    }

    func testWhatIsNoIPv4AddressOrRangeIsRefused() {
        for listing in ["", " , ", "nginx.example", "10.0.0.0/33", "10.0.0.0/", "::1", "10.0.0.2/8x", "10.0.0"] {
            XCTAssertNil(FastCGIClients(listing: listing), listing)
        }
    }
}
