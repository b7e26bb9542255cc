import PushCore
import XCTest

final class WebPushSubscriptionTests: XCTestCase {
    // RFC 8291 Appendix A's receiver keys.
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
    static let json = #"{"endpoint":"https://fcm.googleapis.com/fcm/send/abc:APA91b","expirationTime":null,"keys":{"p256dh":"\#(p256dh)","auth":"\#(auth)"}}"#

    func testTheBrowsersJSONAndTheBeamsTokenAreOneSubscription() throws {
        let fromJSON = try XCTUnwrap(WebPushSubscription.parse(json: Array(Self.json.utf8)))
        XCTAssertEqual(fromJSON.endpoint.url, "https://fcm.googleapis.com/fcm/send/abc:APA91b")
        XCTAssertEqual(fromJSON.p256dh.count, 65)
        XCTAssertEqual(fromJSON.auth.count, 16)
        XCTAssertEqual(fromJSON.origin, "https://fcm.googleapis.com")

        let beamsToken = Base64.encode(Array(Self.json.utf8))
        XCTAssertEqual(WebPushSubscription.fromBeamsToken(beamsToken), fromJSON)

        // Padded keys and another member order are the same device.
        let respelled = #"{"keys":{"auth":"\#(Self.auth)==","p256dh":"\#(Self.p256dh)"},"endpoint":"https://fcm.googleapis.com/fcm/send/abc:APA91b"}"#
        let other = try XCTUnwrap(WebPushSubscription.parse(json: Array(respelled.utf8)))
        XCTAssertEqual(other.token, fromJSON.token)
        XCTAssertEqual(WebPushSubscription(token: fromJSON.token), fromJSON)
        XCTAssertTrue(fromJSON.token.isPlausible(for: .web))
        XCTAssertFalse(DeviceToken(bytes: Array("not json".utf8)).isPlausible(for: .web))
    }

    func testRefusesWhatIsNoSubscription() {
        let refused = [
            #"{"endpoint":"http://fcm.googleapis.com/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}"#,
            #"{"endpoint":"https://user@fcm.googleapis.com/x","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}"#,
            #"{"endpoint":"https://fcm.googleapis.com/x","keys":{"p256dh":"AAAA","auth":"\#(Self.auth)"}}"#,
            #"{"endpoint":"https://fcm.googleapis.com/x","keys":{"p256dh":"\#(Self.p256dh)"}}"#,
            #"{"endpoint":"https://fcm.googleapis.com/x y","keys":{"p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}}"#,
            #"{"endpoint":42}"#, "[]", "", "{",
        ]
        for text in refused {
            XCTAssertNil(WebPushSubscription.parse(json: Array(text.utf8)), text)
        }
        XCTAssertNil(WebPushSubscription.fromBeamsToken("%%%"))
    }

    func testEndpointParsing() throws {
        let withPort = try XCTUnwrap(WebPushEndpoint("https://Push.Example.com:8443/p/1?x=2"))
        XCTAssertEqual(withPort.host, "push.example.com")
        XCTAssertEqual(withPort.port, 8443)
        XCTAssertEqual(withPort.origin, "https://push.example.com:8443")
        XCTAssertEqual(WebPushEndpoint("https://a.example:443/x")?.origin, "https://a.example")
        XCTAssertEqual(WebPushEndpoint("https://[::1]:9/x")?.host, "::1")
        for text in ["https://", "https://:8/x", "https://a.example:0/x", "https://a.example:99999/", "ftp://a/x",
            "https://a.example/x#frag", "https://a_b.example/", String(repeating: "a", count: 900)]
        {
            XCTAssertNil(WebPushEndpoint(text), text)
        }
    }

    func testTheAllowListRefusesOtherOriginsAndPrivateAddresses() throws {
        let policy = WebPushEndpointPolicy.publicPushServices
        XCTAssertNil(policy.refusal(of: "https://fcm.googleapis.com/fcm/send/x"))
        XCTAssertNil(policy.refusal(of: "https://wns2-by3p.notify.windows.com/w/?token=x"))
        XCTAssertNotNil(policy.refusal(of: "https://notify.windows.com/w"), "*. is subdomains only")
        XCTAssertNotNil(policy.refusal(of: "https://fcm.googleapis.com:8443/x"), "another port is another origin")
        XCTAssertNotNil(policy.refusal(of: "https://evil.example/x"))
        XCTAssertNotNil(policy.refusal(of: "http://fcm.googleapis.com/x"))
        XCTAssertTrue(policy.allowsAddress("142.250.1.1", port: 443))
        XCTAssertTrue(policy.allowsAddress("2a00:1450::1", port: 443))
        for address in ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
            "::1", "fe80::1", "fd00::1", "::ffff:10.0.0.1", "::"]
        {
            XCTAssertFalse(policy.allowsAddress(address, port: 443), address)
        }

        let local = try WebPushEndpointPolicy(listing: " https://127.0.0.1:9443 , https://*.push.test/ ")
        XCTAssertNil(local.refusal(of: "https://127.0.0.1:9443/sub/1"))
        XCTAssertNil(local.refusal(of: "https://a.push.test/sub/1"))
        XCTAssertTrue(local.allowsAddress("127.0.0.1", port: 9443))
        XCTAssertFalse(local.allowsAddress("127.0.0.2", port: 9443))
        XCTAssertFalse(local.allowsAddress("10.0.0.1", port: 443), "a wildcard does not open private ranges")
        let named = try WebPushEndpointPolicy(listing: "https://localhost:9443")
        XCTAssertFalse(named.allowsAddress("127.0.0.1", port: 9443), "a name is not its address")
        XCTAssertEqual(local.listing, "https://127.0.0.1:9443,https://*.push.test")

        for listing in ["", "http://a.example", "https://a.example/path", "https://*.10.0.0.1", "a.example"] {
            XCTAssertThrowsError(try WebPushEndpointPolicy(listing: listing), listing)
        }
    }
}
