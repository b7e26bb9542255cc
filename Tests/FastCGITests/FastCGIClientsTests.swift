import PushCore
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

    /// An address as text (doctor's): the same answer, an IPv4-mapped one by its IPv4 address,
    /// any other IPv6 address never.
    func testAnIPAddressIsAnsweredAsItsIPv4Address() throws {
        let clients = try XCTUnwrap(FastCGIClients(listing: "10.0.0.2, 192.168.4.0/22"))
        func allows(_ text: String) throws -> Bool { clients.allows(try XCTUnwrap(IPAddress(text))) }
        XCTAssertTrue(try allows("10.0.0.2"))
        XCTAssertTrue(try allows("192.168.7.255"))
        XCTAssertFalse(try allows("10.0.0.3"))
        XCTAssertTrue(try allows("::ffff:10.0.0.2"))
        XCTAssertFalse(try allows("::ffff:10.0.0.3"))
        XCTAssertFalse(try allows("::1"))
        XCTAssertFalse(try allows("2001:db8::a00:2"))
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
