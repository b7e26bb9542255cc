import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// Web Push through the real nginx and `pushgate serve` to the mock push service, which
/// decrypts every message with the subscriber's keys: a browser softphone's subscription
/// reported to the Token Reporter, pushed through pnm2 and `pushgate send`; a gone
/// subscription pruned; an unlisted endpoint refused; refused credentials on /status and in
/// doctor.
final class WebPushDeliveryIntegrationTests: MockWebPushTestCase {
    static let app = "com.example.softphone.web"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try pushgate.addWebApp(id: Self.app)
    }

    private func report(_ subscription: MockWebPushSubscription, selector: String) throws {
        let token = Base64.encode(Array(subscription.json.utf8))
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let response = try pushgate.client.get(
            "/token/?selector=\(selector)&token_msgs=\(token)&appid_msgs=\(Self.app)")
        XCTAssertEqual(response.status, 200, response.text)
    }

    private func pnm2(selector: String, message: String) throws -> HTTPClient.Response {
        try pushgate.client.post(
            "/pnm2/send", contentType: "application/json",
            body: #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.app)", "Selector": "\#(selector)", "Message": "\#(message)"}"#)
    }

    private func storedSelectors() throws -> Set<String> {
        Set(
            try pushgate.storedDevices().flatMap { device in
                (device["owners"] as? [[String: Any]] ?? []).compactMap { $0["selector"] as? String }
            })
    }

    func testSubscriptionsArePushedPrunedAndRefused() throws {
        let alice = try push.createSubscription()
        let bob = try push.createSubscription()
        try report(alice, selector: "alice-account-000000000")
        try report(bob, selector: "bob-account-0000000000")
        XCTAssertEqual(try pushgate.storedDevices().compactMap { $0["platform"] as? String }, ["web", "web"])

        // pnm2 → the stored subscription → the push service, which decrypted the message.
        let sent = try pnm2(selector: "alice-account-000000000", message: "Hello from pnm2")
        XCTAssertEqual(sent.status, 200, sent.text)
        let delivered = try XCTUnwrap(push.messages(for: alice).first, "\(push.requests.map(\.outcome))")
        let fields = try XCTUnwrap(try JSONValue.parse(delivered.plaintext).objectValue, delivered.text)
        XCTAssertTrue(fields.values.contains(.string("Hello from pnm2")), delivered.text)
        XCTAssertEqual(delivered.urgency, "high")
        XCTAssertEqual(delivered.ttl, 86_400)
        XCTAssertEqual(delivered.subject, "mailto:ops@example.com")

        // `pushgate send` takes the subscription's JSON as the token.
        let cli = try pushgate.cli(["send", "--app", Self.app, "--token", bob.json, "--alert", "Hello from the shell"])
        XCTAssertEqual(cli.status, 0, cli.stdout + cli.stderr)
        XCTAssertTrue(cli.stdout.hasPrefix("delivered (id \(push.baseURL)/m/"), cli.stdout)
        XCTAssertEqual(push.messages(for: bob).map(\.text), [#"{"notification":{"body":"Hello from the shell"}}"#])

        // An endpoint of a push service nobody listed: refused, nothing sent.
        let before = push.log.count
        let elsewhere = bob.json.replacingOccurrences(of: push.baseURL, with: "https://push.elsewhere.example")
        let refused = try pushgate.cli(["send", "--app", Self.app, "--token", elsewhere, "--alert", "x"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stdout.contains("EndpointRefused: push endpoint https://push.elsewhere.example"), refused.stdout)
        XCTAssertEqual(push.log.count, before)

        // The push service refuses the VAPID credentials: /status says so for the app.
        push.inject(.status(403, reason: "BadJwtToken"), for: bob, times: 1)
        XCTAssertEqual(try pnm2(selector: "bob-account-0000000000", message: "refused").status, 200)
        let status = try pushgate.client.get("/status")
        XCTAssertEqual(status.status, 200)
        XCTAssertTrue(
            status.text.contains("refused the VAPID credentials of app \(Self.app)"), "status page lacks the refusal")
        let doctor = try pushgate.cli(["doctor"])
        XCTAssertTrue(
            doctor.stdout.contains("FAIL app \(Self.app): a push service refused its VAPID credentials"), doctor.stdout)

        // The user unsubscribed: 410, and the device is pruned.
        push.markGone(alice)
        XCTAssertEqual(try pnm2(selector: "alice-account-000000000", message: "too late").status, 200)
        XCTAssertEqual(try storedSelectors(), ["bob-account-0000000000"])
        XCTAssertEqual(push.messages(for: alice).count, 1)

        // serve's metrics name the provider and the verdict's word (the CLI's sends are its own).
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        let answers = "pushgate_upstream_answers_total"
        XCTAssertEqual(metrics.value(answers, ["provider": "web", "status": "201", "reason": "ok"]), 1)
        XCTAssertEqual(metrics.value(answers, ["provider": "web", "status": "403", "reason": "Forbidden"]), 1)
        XCTAssertEqual(metrics.value(answers, ["provider": "web", "status": "410", "reason": "Gone"]), 1)
        XCTAssertEqual(metrics.value("pushgate_tokens_pruned_total", ["provider": "web", "reason": "Gone"]), 1)
    }
}

/// A browser registered through the Beams device API, as the web SDK does, reached by a Beams
/// publish through the durable outbox; the push service's 429 is retried after its
/// Retry-After, and the retry arrives once, decrypted.
final class BeamsWebPushIntegrationTests: MockWebPushTestCase {
    static let instance = "6c2b2f0e-8a54-4c64-9a43-0b2d6a3a7e11"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try pushgate.addWebApp(id: "com.example.site", ["--app-key", Self.instance])
    }

    private func call(_ method: String, _ path: String, _ body: String) throws -> HTTPClient.Response {
        try pushgate.client.request(method, path, headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    func testAPublishReachesTheBrowserAfterA429() throws {
        let subscription = try push.createSubscription()
        let device = "/device_api/v1/instances/\(Self.instance)/devices/web"
        let registered = try call("POST", device, #"{"token":"\#(Base64.encode(Array(subscription.json.utf8)))"}"#)
        XCTAssertEqual(registered.status, 200, registered.text)
        let id = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(registered.body)) as? [String: Any])?["id"] as? String)
        XCTAssertEqual(try call("PUT", "\(device)/\(id)/interests", #"{"interests":["news"]}"#).status, 200)

        push.inject(.status(429, reason: "Too Many Requests", retryAfter: 1))
        let published = try call(
            "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/interests",
            #"{"interests":["news"],"web":{"notification":{"title":"Hello","body":"from Beams"},"time_to_live":300}}"#)
        XCTAssertEqual(published.status, 200, published.text)

        XCTAssertTrue(push.waitForRequests(count: 2, timeout: .seconds(20)), "\(push.log.counters)\n\(pushgate.serveLog)")
        XCTAssertEqual(push.log.counters.byStatus, [429: 1, 201: 1])
        let message = try XCTUnwrap(push.messages(for: subscription).first)
        XCTAssertEqual(push.messages.count, 1)
        XCTAssertEqual(message.ttl, 300)
        let payload = try XCTUnwrap(try JSONValue.parse(message.plaintext).objectValue, message.text)
        XCTAssertEqual(payload["notification"], .object(["title": .string("Hello"), "body": .string("from Beams")]))
        XCTAssertEqual(
            payload["data"]?.objectValue?["pusher"]?.objectValue?["instanceId"], .string(Self.instance), message.text)
        let retried = push.requests.map(\.receivedAt)
        XCTAssertGreaterThanOrEqual(retried[1].timeIntervalSince(retried[0]), 1, "not before Retry-After")
    }
}
