import PushCore
import XCTest

/// Which addresses a push may connect to: every special-purpose range is refused unless the
/// operator listed the address with its port, and the public internet is allowed.
final class WebPushAddressTests: XCTestCase {
    let policy = WebPushEndpointPolicy.publicPushServices

    /// One address inside each range and the nearest ones outside it, so that a range drawn too
    /// wide or too narrow fails here, named.
    func testEverySpecialPurposeRangeIsRefusedAndItsNeighboursAreNot() {
        let ranges: [(block: String, inside: [String], outside: [String])] = [
            ("0.0.0.0/8", ["0.0.0.0", "0.255.255.255"], ["1.0.0.1"]),
            ("10.0.0.0/8", ["10.0.0.1", "10.255.255.255"], ["9.255.255.255", "11.0.0.0"]),
            ("100.64.0.0/10", ["100.64.0.1", "100.127.255.255"], ["100.63.255.255", "100.128.0.0"]),
            ("127.0.0.0/8", ["127.0.0.1", "127.255.255.254"], ["126.255.255.255", "128.0.0.1"]),
            ("169.254.0.0/16", ["169.254.169.254"], ["169.253.255.255", "169.255.0.0"]),
            ("172.16.0.0/12", ["172.16.0.1", "172.31.255.255"], ["172.15.255.255", "172.32.0.0"]),
            ("192.0.0.0/24", ["192.0.0.8", "192.0.0.170"], ["192.0.1.1"]),
            ("192.0.2.0/24", ["192.0.2.1"], ["192.0.3.1"]),
            ("192.31.196.0/24", ["192.31.196.1"], ["192.31.197.1"]),
            ("192.52.193.0/24", ["192.52.193.1"], ["192.52.192.255"]),
            ("192.88.99.0/24", ["192.88.99.1"], ["192.88.98.255"]),
            ("192.168.0.0/16", ["192.168.1.1"], ["192.169.0.0", "192.167.255.255"]),
            ("192.175.48.0/24", ["192.175.48.6"], ["192.175.49.1"]),
            ("198.18.0.0/15", ["198.18.0.1", "198.19.255.255"], ["198.17.255.255", "198.20.0.0"]),
            ("198.51.100.0/24", ["198.51.100.7"], ["198.51.101.1"]),
            ("203.0.113.0/24", ["203.0.113.9"], ["203.0.114.1"]),
            ("224.0.0.0/4", ["224.0.0.1", "239.255.255.255"], ["223.255.255.255"]),
            ("240.0.0.0/4", ["240.0.0.1", "255.255.255.254"], []),
            ("255.255.255.255/32", ["255.255.255.255"], []),
            ("::ffff:0:0/96 (judged by its IPv4)", ["::ffff:10.0.0.1", "::ffff:127.0.0.1"], ["::ffff:142.250.1.1"]),
            (
                "64:ff9b::/96 (judged by its IPv4)", ["64:ff9b::a9fe:a9fe", "64:ff9b::10.1.1.1"],
                ["64:ff9b::142.250.1.1"]
            ),
            ("::1/128", ["::1"], []),
            ("::/128", ["::"], []),
            ("::/96", ["::10.0.0.1", "::8.8.8.8", "::2"], []),
            ("::ffff:0:0:0/96", ["::ffff:0:8.8.8.8"], []),
            ("64:ff9b:1::/48", ["64:ff9b:1::1", "64:ff9b:1:ffff::8.8.8.8"], []),
            ("100::/64", ["100::1"], []),
            ("100:0:0:1::/64", ["100:0:0:1::1"], []),
            ("2001::/23", ["2001::1", "2001:2::1", "2001:1::1", "2001:10::1", "2001:1ff::1"], ["2001:200::1"]),
            ("2001:db8::/32", ["2001:db8::1"], ["2001:db9::1"]),
            ("2002::/16", ["2002:a00:1::1", "2002:808:808::1"], ["2003::1"]),
            ("2620:4f:8000::/48", ["2620:4f:8000::42"], ["2620:4f:8001::1"]),
            ("3fff::/20", ["3fff::1", "3fff:fff::1"], ["3fff:1000::1", "3ffe:ffff::1"]),
            ("5f00::/16", ["5f00::1"], []),
            ("fc00::/7", ["fc00::1", "fd12:3456::1"], []),
            ("fe80::/10", ["fe80::1", "febf::1"], []),
            ("fec0::/10", ["fec0::1", "feff::1"], []),
            ("ff00::/8", ["ff02::1", "ff0e::101"], []),
            ("outside 2000::/3", ["4000::1", "1000::1", "8000::1", "e000::1"], ["2000::1", "3ffe::1"]),
        ]
        for range in ranges {
            for address in range.inside {
                XCTAssertNotNil(IPAddress(address), address)
                XCTAssertFalse(policy.allowsAddress(address, port: 443), "\(address) is in \(range.block)")
            }
            for address in range.outside {
                XCTAssertTrue(policy.allowsAddress(address, port: 443), "\(address) is outside \(range.block)")
            }
        }
        XCTAssertEqual(IPAddress("2001:1::1")?.specialPurposeRange?.block, "2001::/23")
        XCTAssertEqual(IPAddress("::1")?.specialPurposeRange?.name, "loopback")
        XCTAssertEqual(IPAddress("::ffff:169.254.169.254")?.specialPurposeRange?.block, "169.254.0.0/16")
        XCTAssertEqual(IPAddress("::ffff:169.254.169.254")?.description, "::ffff:169.254.169.254")
    }

    /// The public addresses of the push services and of the internet at large are allowed.
    func testThePublicInternetIsAllowed() {
        for address in [
            "142.250.74.106", "8.8.8.8", "1.1.1.1", "17.253.144.10", "2a00:1450:4001:82a::200a",
            "2606:4700::6810:84e5", "2001:4860:4860::8888",
        ] {
            XCTAssertTrue(policy.allowsAddress(address, port: 443), address)
            XCTAssertNil(IPAddress(address)?.specialPurposeRange, address)
        }
        XCTAssertFalse(policy.allowsAddress("not-an-address", port: 443))
    }

    /// An entry is scheme, host and port: a listed address opens that port of it and no other.
    func testAListedAddressIsAllowedOnItsOwnPortOnly() throws {
        let listed = try WebPushEndpointPolicy(
            listing: "https://127.0.0.1:8443,https://[fd00::5],https://push.example.test:9443")
        XCTAssertTrue(listed.allowsAddress("127.0.0.1", port: 8443))
        XCTAssertFalse(listed.allowsAddress("127.0.0.1", port: 8444))
        XCTAssertFalse(listed.allowsAddress("127.0.0.1", port: 443))
        XCTAssertFalse(listed.allowsAddress("127.0.0.1", port: 9443), "the port of another entry does not count")
        XCTAssertTrue(listed.allowsAddress("fd00::5", port: 443), "no port is 443")
        XCTAssertFalse(listed.allowsAddress("fd00::5", port: 8443))
        XCTAssertNil(listed.refusal(of: "https://127.0.0.1:8443/x"))
        XCTAssertNotNil(listed.refusal(of: "https://127.0.0.1:8444/x"))
        XCTAssertNil(listed.refusal(of: "https://[fd00::5]/x"))
        XCTAssertEqual(listed.refusedRange(of: try XCTUnwrap(IPAddress("127.0.0.1")), port: 8444)?.block, "127.0.0.0/8")
    }
}
