import FastCGI
import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// `GET /status` loaded in a real headless Chromium (Debian's `chromium`): the apps, device
/// counts, outcomes and outbox that the test caused through the bridge's fan-out to the mocks
/// appear as the store holds them, and text from outside (an upstream's reason) stays text.
/// With PUSHGATE_STATUS_SCREENSHOT=FILE.png it also saves a screenshot (docs/status.png, shown in docs/operations.md).
final class StatusPageIntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    static let apnsApp = "com.example.status"
    static let fcmApp = "com.example.status.android"
    static let chromium = "/usr/bin/chromium"

    private func token(_ seed: UInt8) -> (base64: String, hex: String) {
        let bytes = [UInt8](repeating: seed, count: 32)
        return (Data(bytes).base64EncodedString(), bytes.map { String(format: "%02x", $0) }.joined())
    }

    private func waitUntil(_ what: String, timeout: TimeInterval = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)
        }
        XCTFail("timed out waiting for \(what)\n\(pushgate.serveLog)")
    }

    private func chromium(_ arguments: [String]) throws -> String {
        let output = try pushgate.run(
            Self.chromium,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--user-data-dir=\(pushgate.directory.path)/chromium",
            ]
                + arguments)
        XCTAssertEqual(output.status, 0, output.stderr)
        return output.stdout
    }

    func testChromiumShowsTheAppsCountsAndOutboxTheTestCreated() throws {
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: Self.chromium),
            "chromium is not installed (apt-get install chromium; scripts/test installs it)")
        try startPushgate(environment: [
            "PUSHGATE_BRIDGE_APNS_APP": Self.apnsApp, "PUSHGATE_BRIDGE_FCM_APP": Self.fcmApp,
        ])
        try pushgate.addMockAPNsApp(id: Self.apnsApp)
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm)

        let delivered = token(0xA1), dead = token(0xB2), failing = token(0xC3), refused = token(0xE5)
        let fcmToken = "dXk:APA91bStatus-token_1"
        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), forToken: dead.hex)
        apns.inject(.status(503, reason: "ServiceUnavailable"), forToken: failing.hex)
        // An upstream's words are text, never markup, on the page.
        apns.inject(.status(400, reason: "<b>Bad</b>Topic"), forToken: refused.hex)
        for destination in [delivered, dead, failing, refused].map({ "apns://\($0.base64)" }) + ["gcm://\(fcmToken)"] {
            let subscribed = try pushgate.client.post(
                "/push/notifications", contentType: "application/json",
                body: #"{"pnsub": {"destination": "\#(destination)", "topic": "alerts"}}"#)
            XCTAssertEqual(subscribed.status, 200, subscribed.text)
        }
        let published = try pushgate.client.post(
            "/push/topics/alerts", contentType: "application/json",
            body: #"{"apns": {"aps": {"alert": "Ring"}}, "fcm": {"data": {"call": "1"}}}"#)
        XCTAssertEqual(published.status, 202, published.text)

        // Settled: one push delivered per platform, the dead token pruned, the refused one a
        // dead letter, the failing one waiting for its next attempt.
        try waitUntil("the fan-out's outcomes") {
            let log = try pushgate.cli(["outbox", "log"]).stdout
            let status = try pushgate.cli(["outbox", "status"]).stdout
            return log.components(separatedBy: "delivered").count - 1 >= 2 && log.contains("pruned")
                && status.contains("dead letters: 1") && status.contains("pending: 1")
        }

        // The same pushes in /metrics, counted under the dialect that queued them (once the
        // worker has counted its last batch, just after committing it).
        var metrics = try PrometheusText("")
        func pushes(_ provider: String, _ result: String) -> Double? {
            metrics.value("pushgate_pushes_total", ["provider": provider, "dialect": "bridge", "result": result])
        }
        try waitUntil("the outcomes counted") {
            metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
            return pushes("apns", "rejected") != nil && pushes("apns", "dead_token") != nil
                && pushes("fcm", "delivered") != nil && pushes("apns", "delivered") != nil
        }
        XCTAssertEqual(pushes("apns", "delivered"), 1)
        XCTAssertEqual(pushes("apns", "dead_token"), 1)
        XCTAssertEqual(pushes("apns", "rejected"), 1)
        XCTAssertGreaterThanOrEqual(pushes("apns", "retry") ?? 0, 1)
        XCTAssertEqual(pushes("fcm", "delivered"), 1)
        XCTAssertEqual(
            metrics.value("pushgate_upstream_answers_total", ["provider": "apns", "status": "400", "reason": "other"]),
            1)

        // The last `apps check` of each: the APNs app's accepted, the FCM app's refused.
        let checked = try pushgate.cli(["apps", "check", "--id", Self.apnsApp])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        fcm.injectTokenEndpointFault(.status(400, reason: "invalid_grant"))
        let refusedCheck = try pushgate.cli(["apps", "check", "--id", Self.fcmApp])
        XCTAssertNotEqual(refusedCheck.status, 0, refusedCheck.stdout)

        let dom = try chromium(["--dump-dom", "http://127.0.0.1:\(pushgate.port)/status"])
        XCTAssertTrue(dom.contains("<title>pushgate status</title>"), dom)
        // Each app, with its stored devices as the store counts them.
        let devices = try pushgate.storedDevices()
        for app in [Self.apnsApp, Self.fcmApp] {
            let count = devices.filter { $0["app_id"] as? String == app }.count
            XCTAssertTrue(dom.contains(#"<tr data-app="\#(app)">"#), "\(app) row\n\(dom)")
            XCTAssertTrue(
                Self.row(of: app, in: dom).contains(#"data-devices="\#(count)">\#(count)<"#),
                "\(app): \(count) devices\n\(dom)")
        }
        XCTAssertEqual(devices.filter { $0["app_id"] as? String == Self.apnsApp }.count, 3, "the dead one pruned")
        XCTAssertTrue(Self.row(of: Self.apnsApp, in: dom).contains("provider token"), dom)
        XCTAssertTrue(Self.row(of: Self.apnsApp, in: dom).contains(#"data-check="ok""#), dom)
        XCTAssertTrue(Self.row(of: Self.fcmApp, in: dom).contains(#"data-check="failed""#), dom)
        XCTAssertTrue(Self.row(of: Self.fcmApp, in: dom).contains("Google refused the service account"), dom)
        // The outbox: the failing push retrying, the refused one a dead letter.
        XCTAssertTrue(dom.contains(#"id="outbox-retrying"><b>1</b>"#), dom)
        XCTAssertTrue(dom.contains(#"id="outbox-dead"><b>1</b>"#), dom)
        XCTAssertTrue(dom.contains(#"id="outbox-queued"><b>0</b>"#), dom)
        // The last hour: two deliveries, one prune, one dead letter (retries depend on timing).
        XCTAssertTrue(dom.contains(#"data-outcome="delivered"><b>2</b>"#), dom)
        XCTAssertTrue(dom.contains(#"data-outcome="pruned"><b>1</b>"#), dom)
        XCTAssertTrue(dom.contains(#"data-outcome="dead"><b>1</b>"#), dom)
        XCTAssertTrue(dom.contains(#"<table id="dead-letters">"#), dom)
        XCTAssertTrue(dom.contains(#"<table id="prunes">"#), dom)
        // The reason as text: escaped in the markup, no <b> element made of it.
        XCTAssertTrue(dom.contains("rejected (400): &lt;b&gt;Bad&lt;/b&gt;Topic"), dom)
        XCTAssertFalse(dom.contains("<b>Bad</b>"), dom)
        XCTAssertTrue(dom.contains(#"<meta http-equiv="refresh" content="30">"#), dom)

        if let screenshot = ProcessInfo.processInfo.environment["PUSHGATE_STATUS_SCREENSHOT"], !screenshot.isEmpty {
            _ = try chromium([
                "--screenshot=\(screenshot)", "--window-size=1200,1350", "http://127.0.0.1:\(pushgate.port)/status",
            ])
            XCTAssertTrue(FileManager.default.fileExists(atPath: screenshot))
        }
    }

    func testStatusIsForTheOperatorOnly() throws {
        try startPushgate()
        XCTAssertEqual(try pushgate.client.get("/status").status, 200)
        let refused = try FastCGIClientRequest(
            params: [
                ("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/status"), ("REMOTE_ADDR", "198.51.100.4"),
                ("HTTP_X_FORWARDED_FOR", "127.0.0.1"),
            ]
        ).send(toSocket: pushgate.socket)
        XCTAssertEqual(refused.status, 403, refused.body)
        XCTAssertFalse(refused.body.contains("<html"), refused.body)
        XCTAssertEqual(try pushgate.client.request("POST", "/status").status, 405)
    }

    /// The markup of `app`'s row in the apps table.
    static func row(of app: String, in dom: String) -> String {
        guard let start = dom.range(of: #"<tr data-app="\#(app)">"#) else { return "" }
        let rest = dom[start.lowerBound...]
        return String(rest[..<(rest.range(of: "</tr>")?.upperBound ?? rest.endIndex)])
    }
}
