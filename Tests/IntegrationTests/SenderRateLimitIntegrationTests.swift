import Foundation
import PushTesting
import XCTest

/// The send side's rate limit in the real nginx in front of `pushgate serve`: a flood of wrong
/// sender keys from one address is answered 429 by nginx, in the dialect's shape, and most of
/// it never reaches serve (which reads the database to check each key), while a PBX with a
/// valid key from another address, or from a listed sender address in the middle of its own
/// flood, is answered by serve as usual. Callers come from documentation addresses through
/// `X-Forwarded-For`, which only the test's rendering trusts (loopback is never limited).
final class SenderRateLimitIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    /// What the test renders: a rate and burst a test reaches in a few dozen requests.
    static let burst = 20
    static let listedSender = "198.51.100.20"

    var pushgate: PushgateInstance!
    var key = ""

    override func setUpWithError() throws {
        pushgate = try PushgateInstance(nginxEnvironment: [
            "PUSHGATE_NGINX_SENDER_RATE": "60r/m", "PUSHGATE_NGINX_SENDER_BURST": String(Self.burst),
            "PUSHGATE_NGINX_SENDER_ADDRESSES": Self.listedSender,
        ])
        pushgate.adjustNginx = PushgateInstance.trustForwardedFor
        try pushgate.start()
        let added = try pushgate.cli(["keys", "add", "pbx"])
        XCTAssertEqual(added.status, 0, added.stderr)
        key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    /// A multisend of one `null`: answered 200 by serve once the key is accepted, with a 400
    /// for the push, and nothing sent.
    func multisend(from address: String, key: String) throws -> HTTPClient.Response {
        try pushgate.client.post(
            "/pnm2/multisend", contentType: "application/json", body: "[null]",
            headers: ["Authorization": "Bearer \(key)", "X-Forwarded-For": address])
    }

    /// The requests among `ids` whose line is in serve's log (every line carries request-id=).
    func reachedServe(_ ids: [String]) -> Int {
        let log = pushgate.serveLog
        return ids.filter { log.contains("request-id=\($0)") }.count
    }

    func testAFloodOfWrongKeysIsAnswered429ByNginxWhileAPBXWithAValidKeyIsServed() throws {
        var refusedIDs: [String] = [], refusedByServeIDs: [String] = []
        var pbxStatuses: [Int] = [], listedStatuses: [Int] = []
        for n in 0..<300 {
            let wrong = try multisend(from: "203.0.113.7", key: "wrong")
            let id = try XCTUnwrap(wrong.header("X-Request-Id"), wrong.text)
            switch wrong.status {
            case 429:
                XCTAssertEqual(wrong.header("content-type"), "application/json", wrong.text)
                XCTAssertEqual(
                    wrong.text, "{\"code\": 429, \"response\": \"too many requests, slow down\", \"status\": 429}\n")
                refusedIDs.append(id)
            case 401: refusedByServeIDs.append(id)
            default: XCTFail("a wrong key: \(wrong.status) \(wrong.text)")
            }
            // A PBX of its own address, within what one PBX sends.
            if n % 30 == 0 { pbxStatuses.append(try multisend(from: "192.0.2.50", key: key).status) }
            // The listed sender sends as much as the flood, more than the limit lets through.
            listedStatuses.append(try multisend(from: Self.listedSender, key: key).status)
        }
        XCTAssertEqual(pbxStatuses, Array(repeating: 200, count: 10), "the PBX at 192.0.2.50")
        XCTAssertEqual(listedStatuses.filter { $0 != 200 }, [], "the listed sender \(Self.listedSender)")
        // nginx let the burst through and about one a second after it; the rest got its 429.
        XCTAssertGreaterThan(refusedIDs.count, refusedByServeIDs.count, "most of the flood is refused by nginx")
        XCTAssertGreaterThanOrEqual(refusedByServeIDs.count, Self.burst, "the burst reached serve")
        // serve saw the requests it refused and none of those nginx refused.
        try pushgate.waitForServeLog(containing: "request-id=\(refusedByServeIDs.last ?? "none")")
        XCTAssertEqual(reachedServe(refusedByServeIDs), refusedByServeIDs.count, pushgate.serveLog)
        XCTAssertEqual(reachedServe(refusedIDs), 0, "requests nginx refused reached serve")
    }

    /// Every send-side location is under the limit, each in its dialect's shape; the client
    /// address is counted by its IPv6 /64, as the phone-facing limit counts it.
    func testEverySendSideLocationIsLimitedPerClientAddress() throws {
        let sendSide: [(method: String, path: String, address: String, says: String)] = [
            ("POST", "/pnm2/send", "203.0.113.11", "\"code\": 429"),
            ("POST", "/pnm2", "203.0.113.12", "\"code\": 429"),
            (
                "POST", "/publish_api/v1/instances/some-app-key/publishes", "203.0.113.13",
                "\"error\": \"Too Many Requests\""
            ),
            (
                "DELETE", "/customer_api/v1/instances/some-app-key/users/alice", "203.0.113.14",
                "\"error\": \"Too Many Requests\""
            ),
            (
                "DELETE", "/user_api/v1/instances/some-app-key/users/alice", "203.0.113.15",
                "\"error\": \"Too Many Requests\""
            ),
            (
                "POST", "/push/topics/news", "203.0.113.16",
                "{\"response\": {\"error\": \"too many requests, slow down\"}}"
            ),
            ("POST", "/api/push/events", "203.0.113.17", "{\"status\": \"too-many-requests\"}"),
            // One /64: the second address spends what the first left.
            ("POST", "/pnm2/send", "2001:db8:1:2::5", "\"code\": 429"),
        ]
        for location in sendSide {
            var statuses: [Int] = []
            var refusal = ""
            for n in 0..<(Self.burst + 10) {
                let address = location.address.hasPrefix("2001:") && n % 2 == 1 ? "2001:db8:1:2::6" : location.address
                let response = try pushgate.client.request(
                    location.method, location.path,
                    headers: [
                        "Content-Type": "application/json", "Authorization": "Bearer wrong", "X-Forwarded-For": address,
                    ],
                    body: Array("{}".utf8))
                statuses.append(response.status)
                if response.status == 429 { refusal = response.text }
            }
            XCTAssertTrue(statuses.contains(429), "\(location.path) from \(location.address): \(statuses)")
            XCTAssertTrue(refusal.contains(location.says), "\(location.path): \(refusal)")
            XCTAssertFalse(statuses.prefix(Self.burst).contains(429), "\(location.path): the burst passes: \(statuses)")
        }
    }
}
