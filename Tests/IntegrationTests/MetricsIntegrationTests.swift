import FastCGI
import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// `GET /metrics` of a real pushgate pushing to the mocks: the counters count exactly the
/// pushes the test caused, by provider, dialect and result; and only the operator may read it.
final class MetricsIntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    static let apnsApp = "com.example.metrics"
    static let fcmApp = "com.example.metrics.android"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try startPushgate()
        try pushgate.addMockAPNsApp(id: Self.apnsApp)
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm)
    }

    private func apnsToken(_ byte: String) -> String { String(repeating: byte, count: 32) }

    private func push(_ appID: String, _ token: String) -> String {
        #"{"DeviceToken": "\#(token)", "AppId": "\#(appID)", "verb": "NotifyGenericTextMessage", "Message": "m"}"#
    }

    private func metrics(headers: [String: String] = [:]) throws -> PrometheusText {
        let response = try pushgate.client.get("/metrics", headers: headers)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusText(response.text)
    }

    func testCountsThePushesItSentByProviderDialectAndResult() throws {
        let deadAPNs = apnsToken("d0")
        let failingAPNs = apnsToken("e0")
        // Dead since a minute from now: after the device's registration, so it is pruned.
        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), forToken: deadAPNs)
        apns.inject(.status(503, reason: "ServiceUnavailable"), forToken: failingAPNs)
        fcm.setOutcome(.unregistered, forToken: "metrics-dead-fcm")
        // A stored device for the dead APNs token, so that its prune is real.
        let reported = try pushgate.client.get(
            "/token/?selector=metrics-selector-01&token_msgs=\(DeviceToken.fromHex(deadAPNs)!.base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&appid_msgs=\(Self.apnsApp)"
        )
        XCTAssertEqual(reported.status, 200, reported.text)

        let batch = [
            push(Self.apnsApp, apnsToken("a1")), push(Self.apnsApp, apnsToken("a2")),
            push(Self.apnsApp, apnsToken("a3")),
            push(Self.apnsApp, deadAPNs), push(Self.apnsApp, failingAPNs),
            push(Self.fcmApp, "metrics-fcm-1"), push(Self.fcmApp, "metrics-fcm-2"),
            push(Self.fcmApp, "metrics-dead-fcm"),
        ]
        let sent = try pushgate.client.post(
            "/pnm2/multisend", contentType: "application/json", body: "[" + batch.joined(separator: ", ") + "]")
        XCTAssertEqual(sent.status, 200, sent.text)
        let codes = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(sent.body)) as? [[String: Any]]).map {
            $0["code"] as? Int
        }
        XCTAssertEqual(codes, [200, 200, 200, 404, 500, 200, 200, 404], sent.text)

        let scraped = try metrics()
        func pushes(_ provider: String, _ result: String) -> Double? {
            scraped.value("pushgate_pushes_total", ["provider": provider, "dialect": "pnm2", "result": result])
        }
        XCTAssertEqual(pushes("apns", "delivered"), 3)
        XCTAssertEqual(pushes("apns", "dead_token"), 1)
        // pnm2 tries a failing push twice (one short retry) before it answers 500: each attempt counts.
        XCTAssertEqual(pushes("apns", "retry"), 2)
        XCTAssertEqual(pushes("fcm", "delivered"), 2)
        XCTAssertEqual(pushes("fcm", "dead_token"), 1)
        XCTAssertNil(pushes("fcm", "retry"), "no FCM push failed")

        func answers(_ provider: String, _ status: String, _ reason: String) -> Double? {
            scraped.value(
                "pushgate_upstream_answers_total", ["provider": provider, "status": status, "reason": reason])
        }
        XCTAssertEqual(answers("apns", "200", "ok"), 3)
        XCTAssertEqual(answers("apns", "410", "Unregistered"), 1)
        XCTAssertEqual(answers("apns", "503", "ServiceUnavailable"), 2)
        XCTAssertEqual(answers("fcm", "200", "ok"), 2)
        XCTAssertEqual(answers("fcm", "404", "UNREGISTERED"), 1)
        XCTAssertEqual(scraped.value("pushgate_upstream_request_duration_seconds_count", ["provider": "apns"]), 6)
        XCTAssertEqual(scraped.value("pushgate_upstream_request_duration_seconds_count", ["provider": "fcm"]), 3)

        XCTAssertEqual(
            scraped.value("pushgate_tokens_pruned_total", ["provider": "apns", "reason": "Unregistered"]), 1)
        XCTAssertEqual(scraped.value("pushgate_tokens_pruned_total", ["provider": "fcm", "reason": "UNREGISTERED"]), 1)
        XCTAssertEqual(scraped.value("pushgate_fcm_access_token_refreshes_total", ["result": "ok"]), 1)
        XCTAssertEqual(try pushgate.storedDevices().count, 0, "the dead APNs token's device was pruned")

        // The requests by route: the report, the multisend; this scrape is counted after it answers.
        XCTAssertEqual(scraped.value("pushgate_requests_total", ["endpoint": "/pnm2", "status": "200"]), 1)
        XCTAssertEqual(scraped.value("pushgate_requests_total", ["endpoint": "/token", "status": "200"]), 1)
        XCTAssertEqual(scraped.value("pushgate_request_duration_seconds_count", ["endpoint": "/pnm2"]), 1)
        XCTAssertNotNil(scraped.value("pushgate_start_time_seconds"))
        XCTAssertEqual(scraped.series("pushgate_build_info").map(\.value), [1])
        // While the scrape is answered: its own thread busy, its own connection open.
        XCTAssertEqual(scraped.value("pushgate_busy_threads", ["lane": "responder"]), 1)
        XCTAssertEqual(scraped.value("pushgate_busy_threads", ["lane": "upstream"]), 0, "the multisend's lane is done")
        XCTAssertGreaterThanOrEqual(scraped.value("pushgate_fastcgi_connections") ?? 0, 1)
        // The writes went through SQLite's group-commit writer; on PostgreSQL the report went
        // through the node's report batches.
        XCTAssertGreaterThan(scraped.value("pushgate_writer_batch_size_sum") ?? 0, 0)
        XCTAssertGreaterThan(scraped.value("pushgate_writer_wait_seconds_count") ?? 0, 0)
        XCTAssertEqual(scraped.value("pushgate_outbox_rows", ["state": "dead"]), 0)
        XCTAssertEqual(scraped.value("pushgate_outbox_dead_letters"), 0)

        // A second scrape sees the first one counted, under its route name.
        XCTAssertEqual(try metrics().value("pushgate_requests_total", ["endpoint": "/metrics", "status": "200"]), 1)
    }

    func testOnlyLoopbackOrAnOperatorKeyMayReadIt() throws {
        let path = "/metrics"
        func direct(remote: String, _ extra: [(String, String)] = []) throws -> FastCGIClientRequest.Reply {
            try FastCGIClientRequest(
                params: [("REQUEST_METHOD", "GET"), ("REQUEST_URI", path), ("REMOTE_ADDR", remote)] + extra
            ).send(toSocket: pushgate.socket)
        }
        // Through nginx from this machine: served.
        XCTAssertEqual(try pushgate.client.get(path).status, 200)
        // From another address (nginx passes the peer as REMOTE_ADDR): refused, whatever
        // the client claims in X-Forwarded-For or X-Real-IP.
        for remote in ["203.0.113.9", "2001:db8::7", "10.0.0.1", "::ffff:192.0.2.1"] {
            let refused = try direct(
                remote: remote, [("HTTP_X_FORWARDED_FOR", "127.0.0.1"), ("HTTP_X_REAL_IP", "127.0.0.1")])
            XCTAssertEqual(refused.status, 403, "\(remote): \(refused.body)")
            XCTAssertEqual(refused.headers["content-type"], "text/plain; charset=utf-8")
            XCTAssertFalse(refused.body.contains("pushgate_"), refused.body)
        }
        // Loopback in its other spellings: served.
        for remote in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            XCTAssertEqual(try direct(remote: remote).status, 200, remote)
        }

        // A sender key is no operator key: refused from elsewhere, and loopback stays open.
        let sender = try pushgate.cli(["keys", "add", "pbx"])
        XCTAssertEqual(sender.status, 0, sender.stderr)
        let senderKey = sender.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try direct(remote: "203.0.113.9", [("HTTP_AUTHORIZATION", "Bearer \(senderKey)")]).status, 403)
        XCTAssertEqual(try pushgate.client.get(path).status, 200)

        let added = try pushgate.cli(["keys", "add", "prometheus", "--operator"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let withKey = try direct(remote: "203.0.113.9", [("HTTP_AUTHORIZATION", "Bearer \(key)")])
        XCTAssertEqual(withKey.status, 200, withKey.body)
        XCTAssertTrue(withKey.body.contains("pushgate_requests_total"), withKey.body)
        let basic = Data("prometheus:\(key)".utf8).base64EncodedString()
        XCTAssertEqual(try direct(remote: "203.0.113.9", [("HTTP_AUTHORIZATION", "Basic \(basic)")]).status, 200)
        XCTAssertEqual(try direct(remote: "203.0.113.9", [("HTTP_AUTHORIZATION", "Bearer not-\(key)")]).status, 403)
        // With an operator key, loopback is no exemption: a local user who speaks FastCGI (or
        // reaches nginx) must not read the page without it.
        XCTAssertEqual(try pushgate.client.get(path).status, 403)
        XCTAssertEqual(try direct(remote: "127.0.0.1").status, 403)
        XCTAssertEqual(try direct(remote: "127.0.0.1", [("HTTP_AUTHORIZATION", "Bearer \(senderKey)")]).status, 403)
        XCTAssertEqual(try pushgate.client.get(path, headers: ["Authorization": "Bearer \(key)"]).status, 200)
        let revoked = try pushgate.cli(["keys", "revoke", "prometheus"])
        XCTAssertEqual(revoked.status, 0, revoked.stderr)
        XCTAssertEqual(try direct(remote: "203.0.113.9", [("HTTP_AUTHORIZATION", "Bearer \(key)")]).status, 403)
        // No operator key left: loopback only again, also while sender keys exist.
        XCTAssertEqual(try pushgate.client.get(path).status, 200)
    }
}
