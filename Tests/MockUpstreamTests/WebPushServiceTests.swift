import Foundation
import MockUpstream
import PushCrypto
import XCTest

/// The mock push service: what it accepts (and decrypts), what it refuses and how, and the
/// faults tests script, driven by curl over HTTP/2 and HTTP/1.1.
final class WebPushServiceTests: XCTestCase {
    private var push: MockWebPush!
    private var key: VAPIDKey!

    override func setUpWithError() throws {
        push = try startWebPush()
        key = try VAPIDKey.generate()
    }

    override func tearDown() {
        push.shutdown()
    }

    func testAcceptsDecryptsAndRecordsAMessage() throws {
        let subscription = try push.createSubscription()
        XCTAssertTrue(subscription.endpoint.hasPrefix(push.baseURL + "/push/"), subscription.endpoint)
        var send = WebPushSend(to: subscription, key: key)
        send.plaintext = Array("Ünïcode and a \u{0} NUL".utf8)
        send.headers = ["urgency": "high", "topic": "call-42"]
        let response = try send.post()
        XCTAssertEqual(response.status, 201, response.body)
        XCTAssertEqual(response.httpVersion, "2")
        XCTAssertTrue(response.headers["location"]?.hasPrefix(push.baseURL + "/m/") == true, "\(response.headers)")

        let message = try XCTUnwrap(push.messages(for: subscription).first)
        XCTAssertEqual(message.plaintext, send.plaintext)
        XCTAssertEqual(message.ttl, 60)
        XCTAssertEqual(message.urgency, "high")
        XCTAssertEqual(message.topic, "call-42")
        XCTAssertEqual(message.subject, "mailto:ops@example.com")
        XCTAssertEqual(push.requests.last?.auth, .vapid(subject: "mailto:ops@example.com"))
        XCTAssertEqual(push.requests.last?.deviceToken, subscription.id)

        XCTAssertEqual(try send.post(http1: true).status, 201, "HTTP/1.1 too")
        XCTAssertEqual(push.messages.count, 2)
    }

    func testSubscriptionJSONIsWhatABrowserHandsOver() throws {
        let subscription = try push.createSubscription()
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(subscription.json.utf8)) as? [String: Any])
        XCTAssertEqual(json["endpoint"] as? String, subscription.endpoint)
        let keys = try XCTUnwrap(json["keys"] as? [String: String])
        XCTAssertEqual(keys["p256dh"].flatMap(Base64URL.decode), subscription.p256dh)
        XCTAssertEqual(keys["auth"].flatMap(Base64URL.decode), subscription.auth)
        XCTAssertNotEqual(try push.createSubscription().p256dh, subscription.p256dh)
    }

    func testGoneUnknownAndTooLarge() throws {
        let subscription = try push.createSubscription()
        push.markGone(subscription)
        let gone = try WebPushSend(to: subscription, key: key).post()
        XCTAssertEqual(gone.status, 410)
        XCTAssertEqual(gone.json?["errno"] as? Int, 103)
        push.markGone(subscription, false)
        XCTAssertEqual(try WebPushSend(to: subscription, key: key).post().status, 201, "live again")

        var unknown = WebPushSend(to: subscription, key: key)
        unknown.subscription = MockWebPushSubscription(
            id: "nobody", endpoint: push.baseURL + "/push/nobody", p256dh: subscription.p256dh, auth: subscription.auth)
        XCTAssertEqual(try unknown.post().status, 404)

        var large = WebPushSend(to: subscription, key: key)
        large.plaintext = [UInt8](repeating: 0x61, count: 3994)
        let tooLarge = try large.post()
        XCTAssertEqual(tooLarge.status, 413, tooLarge.body)
        XCTAssertEqual(tooLarge.json?["errno"] as? Int, 104)
        large.plaintext.removeLast()
        XCTAssertEqual(try large.post().status, 201, "3993 bytes make a 4096-byte body")
        XCTAssertEqual(push.messages.count, 2)
    }

    func testRefusesBadVAPID() throws {
        let subscription = try push.createSubscription()
        func status(_ authorization: String) throws -> (Int, String) {
            var send = WebPushSend(to: subscription, key: key)
            send.headers["authorization"] = authorization
            let response = try send.post()
            return (response.status, response.json?["message"] as? String ?? response.body)
        }
        let origin = push.baseURL
        XCTAssertEqual(try status("").0, 401, "no Authorization")
        XCTAssertEqual(try status("Bearer abc").0, 401)
        let (wrongAud, wrongAudMessage) = try status(try WebPushSend.authorization(key: key, audience: "https://other.example"))
        XCTAssertEqual(wrongAud, 401)
        XCTAssertEqual(wrongAudMessage, "The VAPID aud must be \(origin)")
        let (tooLong, tooLongMessage) = try status(
            try WebPushSend.authorization(key: key, audience: origin, expiresIn: 25 * 3600))
        XCTAssertEqual(tooLong, 401)
        XCTAssertEqual(tooLongMessage, "The VAPID exp is more than 24 hours ahead")
        XCTAssertEqual(try status(try WebPushSend.authorization(key: key, audience: origin, expiresIn: -10)).1, "The VAPID JWT has expired")
        XCTAssertEqual(
            try status(try WebPushSend.authorization(key: key, audience: origin, subject: "ops@example.com")).1,
            "The VAPID sub must be a mailto: or https: URL")
        // Signed by one key, presented with another's k.
        let token = try VAPIDToken.sign(
            audience: origin, subject: "mailto:a@example.com", expiresAt: Int(Date().timeIntervalSince1970) + 60,
            key: VAPIDKey.generate())
        XCTAssertEqual(
            try status(try VAPIDToken.authorization(token: token, key: key)).1,
            "The VAPID JWT's signature does not verify against k")
        XCTAssertTrue(push.messages.isEmpty)
    }

    func testRefusesBadHeadersAndUndecryptableBodies() throws {
        let subscription = try push.createSubscription()
        func response(headers: [String: String] = [:], body: [UInt8]? = nil) throws -> CurlResponse {
            var send = WebPushSend(to: subscription, key: key)
            send.headers = headers
            send.body = body
            return try send.post()
        }
        let missingTTL = try response(headers: ["ttl": ""])
        XCTAssertEqual(missingTTL.status, 400)
        XCTAssertEqual(missingTTL.json?["errno"] as? Int, 111)
        XCTAssertEqual(try response(headers: ["ttl": "soon"]).status, 400)
        XCTAssertEqual(try response(headers: ["ttl": "-1"]).status, 400)
        XCTAssertEqual(try response(headers: ["urgency": "urgent"]).status, 400)
        XCTAssertEqual(try response(headers: ["topic": String(repeating: "a", count: 33)]).status, 400)
        XCTAssertEqual(try response(headers: ["topic": "not/base64url"]).status, 400)
        XCTAssertEqual(try response(headers: ["content-encoding": "aesgcm"]).json?["errno"] as? Int, 110)
        XCTAssertEqual(try response(headers: ["content-encoding": ""]).status, 400)

        let otherSubscriber = try push.createSubscription()
        let forOther = try WebPushEncryption.encrypt(
            Array("hi".utf8), receiverPublicKey: otherSubscriber.p256dh, authSecret: otherSubscriber.auth)
        let wrongKeys = try response(body: forOther)
        XCTAssertEqual(wrongKeys.status, 400)
        XCTAssertTrue((wrongKeys.json?["message"] as? String ?? "").contains("could not decrypt"), wrongKeys.body)
        XCTAssertEqual(try response(body: Array("plain text".utf8)).status, 400)
        XCTAssertEqual(try response(body: []).status, 400)
        XCTAssertEqual(try response(headers: ["ttl": "99999999"]).status, 201, "TTL above 30 days is cut, not refused")
        XCTAssertEqual(push.messages.map(\.ttl), [2_592_000])
    }

    func testWrongMethodAndPath() throws {
        let subscription = try push.createSubscription()
        let get = try Curl.post(subscription.endpoint, extraArguments: ["-X", "GET"])
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(try Curl.post(push.baseURL + "/elsewhere").status, 404)
    }

    func testInjectedFaults() throws {
        let subscription = try push.createSubscription()
        push.inject(.status(429, reason: "Too Many Requests", retryAfter: 30))
        let throttled = try WebPushSend(to: subscription, key: key).post()
        XCTAssertEqual(throttled.status, 429)
        XCTAssertEqual(throttled.headers["retry-after"], "30")
        push.inject(.status(503, reason: "Service Unavailable"), for: subscription, times: 1)
        XCTAssertEqual(try WebPushSend(to: subscription, key: key).post().status, 503)
        XCTAssertEqual(try WebPushSend(to: subscription, key: key).post().status, 201)
        push.inject(.resetConnection)
        XCTAssertEqual(try WebPushSend(to: subscription, key: key).post().status, 0, "no answer")
        XCTAssertEqual(push.log.counters.byStatus, [429: 1, 503: 1, 201: 1])
        XCTAssertEqual(push.log.counters.connectionResets, 1)
        XCTAssertEqual(push.messages.count, 1)

        push.reset()
        XCTAssertTrue(push.messages.isEmpty)
        XCTAssertEqual(push.log.count, 0)
    }
}
