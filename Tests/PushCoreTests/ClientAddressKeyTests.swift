import PushCore
import XCTest

/// The bucket a per-address limit counts a caller in, from the address nginx passes.
final class ClientAddressKeyTests: XCTestCase {
    private func key(_ address: String) -> String { ClientAddressKey(address).text }

    func testAnIPv4AddressIsItsOwnKey() {
        XCTAssertEqual(key("203.0.113.7"), "203.0.113.7")
        XCTAssertEqual(key("127.0.0.1"), "127.0.0.1")
    }

    func testAnIPv6AddressCountsByItsSlash64() {
        XCTAssertEqual(key("2001:db8:1:2::a"), "2001:db8:1:2::/64")
        XCTAssertEqual(key("2001:DB8:1:2:ffff:1:2:3"), "2001:db8:1:2::/64")
        XCTAssertEqual(key("2001:0db8:0001:0002:0000:0000:0000:000b"), "2001:db8:1:2::/64")
        XCTAssertEqual(key("fe80::1%eth0"), "fe80:0:0:0::/64")
        XCTAssertEqual(key("::1"), "0:0:0:0::/64")
        XCTAssertNotEqual(key("2001:db8:1:3::a"), key("2001:db8:1:2::a"))
    }

    /// A dual-stack listener shows an IPv4 caller as ::ffff:a.b.c.d: its first 64 bits are
    /// zero, so per /64 every IPv4 caller would share one key.
    func testAMappedIPv4AddressIsFoldedToIPv4InEverySpelling() {
        for spelling in [
            "::ffff:192.0.2.1", "::FFFF:192.0.2.1", "0:0:0:0:0:ffff:192.0.2.1", "::ffff:c000:201",
            "0000:0000:0000:0000:0000:ffff:c000:0201", " ::ffff:192.0.2.1 ",
        ] {
            XCTAssertEqual(key(spelling), "192.0.2.1", spelling)
        }
        XCTAssertNotEqual(key("::ffff:192.0.2.1"), key("::ffff:192.0.2.2"))
    }

    /// Addresses that only look alike stay IPv6: NAT64's well-known prefix and IPv4-compatible
    /// addresses are other networks' addresses.
    func testOtherEmbeddingsAreNotFolded() {
        XCTAssertEqual(key("64:ff9b::192.0.2.1"), "64:ff9b:0:0::/64")
        XCTAssertEqual(key("::192.0.2.1"), "0:0:0:0::/64")
        XCTAssertEqual(key("::ffff:0:192.0.2.1"), "0:0:0:0::/64")
    }

    /// What is no address (a FastCGI client of its own making sends what it likes) is kept,
    /// lowercased and bounded: it cannot make a key larger than an address's.
    func testWhatIsNoAddressIsKeptBounded() {
        XCTAssertEqual(key(""), "")
        XCTAssertEqual(key("Unix:"), "unix:")
        XCTAssertEqual(key("1.2.3"), "1.2.3")
        XCTAssertEqual(key("1.2.3.256"), "1.2.3.256")
        XCTAssertEqual(key("01.2.3.4"), "01.2.3.4", "leading zeros are no dotted quad")
        XCTAssertEqual(key("1:2:3:4:5:6:7:8:9"), "1:2:3:4:5:6:7:8:9")
        XCTAssertEqual(key(String(repeating: "a", count: 6_000)).count, ClientAddressKey.maximumOtherLength)
        XCTAssertEqual(key(":::" + String(repeating: "1", count: 100)).count, ClientAddressKey.maximumOtherLength)
    }
}
