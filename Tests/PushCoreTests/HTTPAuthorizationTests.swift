import PushCore
import XCTest

final class HTTPAuthorizationTests: XCTestCase {
    func testBearerAndBasicAreParsedWithCaseInsensitiveSchemes() {
        XCTAssertEqual(HTTPAuthorization(header: "Bearer pgk_abc"), .bearer("pgk_abc"))
        XCTAssertEqual(HTTPAuthorization(header: "bearer   pgk_abc  "), .bearer("pgk_abc"))
        // "pbx:se:cret" — the password keeps its colons, the user id cannot have one.
        XCTAssertEqual(HTTPAuthorization(header: "Basic cGJ4OnNlOmNyZXQ="), .basic(user: "pbx", password: "se:cret"))
        XCTAssertEqual(HTTPAuthorization(header: "BASIC OnBna194"), .basic(user: "", password: "pgk_x"))
    }

    func testMalformedOrForeignHeadersGiveNothing() {
        for header in [nil, "", "Bearer", "Bearer ", "Bearer a b", "Digest x=1", "Basic !!!!", "Basic bm9jb2xvbg==",
            "Basic /w==", "pgk_abc"]
        {
            XCTAssertNil(HTTPAuthorization(header: header), header ?? "nil")
        }
        // Invalid UTF-8 in the user-pass ("\u{FF}:x").
        XCTAssertNil(HTTPAuthorization(header: "Basic /zp4"))
    }

    func testLoopbackAddresses() {
        for address in ["127.0.0.1", "127.8.9.10", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::FFFF:127.1.2.3"] {
            XCTAssertTrue(Request(method: "POST", path: "/", remoteAddress: address).isFromLoopback, address)
        }
        for address in ["", "10.0.0.1", "128.0.0.1", "127.0.0", "127.0.0.1.5", "127.0.0.256", "::2", "fe80::1",
            "1127.0.0.1", "::ffff:128.0.0.1", "::127.0.0.1", "127.0.0.1%lo", " 127.0.0.1"]
        {
            XCTAssertFalse(Request(method: "POST", path: "/", remoteAddress: address).isFromLoopback, address)
        }
    }
}
