import Foundation
import MockUpstream
import PushTesting
import XCTest

/// Every APNs push type through nginx, `pushgate serve` and the outbox to the mock APNs, which
/// checks each header as Apple does (topic suffix per type, priority, expiration, collapse id);
/// and the per-push controls of a Beams publish and of `pushgate send`.
final class APNsPushTypeIntegrationTests: BeamsTestCase {
    /// Apple's table, written out here apart from pushgate's (`APNsPushType`) and the mock's.
    static let expected: [(type: String, topic: String, priority: String, expiration: String?)] = [
        ("alert", "com.example.alert-app", "10", nil),
        ("background", "com.example.background-app", "5", nil),
        ("location", "com.example.location-app.location-query", "10", nil),
        ("voip", "com.example.voip-app.voip", "10", nil),
        ("complication", "com.example.complication-app.complication", "10", nil),
        ("fileprovider", "com.example.fileprovider-app.pushkit.fileprovider", "10", nil),
        ("mdm", "com.apple.mgmt.External.5e0b4f1a-7d2c-4c4e-9a51-0f3c6b2d8e11", "10", nil),
        ("liveactivity", "com.example.liveactivity-app.push-type.liveactivity", "10", nil),
        ("pushtotalk", "com.example.pushtotalk-app.voip-ptt", "10", "0"),
        ("widgets", "com.example.widgets-app.push-type.widgets", "5", nil),
        ("controls", "com.example.controls-app.push-type.controls", "10", nil),
    ]

    static func token(_ n: Int) -> String { String(format: "%064x", n + 1) }

    func testEachPushTypesHeadersAndThePerPushControls() throws {
        try startPushgate()
        // One app per type, its topic derived from its id (the bundle id) but for mdm's.
        for (index, row) in Self.expected.enumerated() {
            let mdm = row.type == "mdm" ? ["--topic", row.topic] : []
            try pushgate.addMockAPNsApp(
                id: "com.example.\(row.type)-app", ["--push-type", row.type, "--app-key", "instance-\(row.type)"] + mdm)
            try client(key: "instance-\(row.type)", type: "apns", token: Self.token(index), interests: ["all"])
        }
        let listed = try pushgate.cli(["apps", "list"])
        XCTAssertTrue(listed.stdout.contains("com.example.widgets-app.push-type.widgets"), listed.stdout)

        for row in Self.expected {
            let published = try send(
                "POST", "/publish_api/v1/instances/instance-\(row.type)/publishes/interests",
                #"{"interests":["all"],"apns":{"aps":{"content-available":1}}}"#)
            XCTAssertEqual(published.status, 200, "\(row.type): \(published.text)")
        }
        XCTAssertTrue(
            apns.waitForRequests(count: Self.expected.count), "\(apns.requests.count) requests\n\(pushgate.serveLog)")
        try waitForEmptyOutbox()
        for (index, row) in Self.expected.enumerated() {
            let request = try XCTUnwrap(apns.requests.first { $0.deviceToken == Self.token(index) }, row.type)
            XCTAssertEqual(request.outcome, .answered(status: 200, reason: nil), row.type)
            XCTAssertEqual(request.headers["apns-push-type"], row.type)
            XCTAssertEqual(request.headers["apns-topic"], row.topic, row.type)
            XCTAssertEqual(request.headers["apns-priority"], row.priority, row.type)
            XCTAssertEqual(request.headers["apns-expiration"], row.expiration, row.type)
        }

        // A publish's controls become headers, not payload; a bad one is a 422 through nginx.
        let controlled = try send(
            "POST", "/publish_api/v1/instances/instance-liveactivity/publishes/interests",
            #"{"interests":["all"],"apns":{"aps":{"event":"update"},"collapse_id":"score-7","expiration":1900000000,"priority":5}}"#)
        XCTAssertEqual(controlled.status, 200, controlled.text)
        XCTAssertTrue(apns.waitForRequests(count: Self.expected.count + 1), pushgate.serveLog)
        let live = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(live.outcome, .answered(status: 200, reason: nil))
        XCTAssertEqual(live.headers["apns-collapse-id"], "score-7")
        XCTAssertEqual(live.headers["apns-expiration"], "1900000000")
        XCTAssertEqual(live.headers["apns-priority"], "5")
        XCTAssertEqual(live.bodyJSON, .object(["aps": .object(["event": .string("update")])]))
        let long = String(repeating: "c", count: 65)
        try assertBeamsError(
            try send(
                "POST", "/publish_api/v1/instances/instance-alert/publishes/interests",
                #"{"interests":["all"],"apns":{"aps":{},"collapse_id":"\#(long)"}}"#),
            422, "Unprocessable Entity", contains: "apns.collapse_id must be at most 64 bytes")

        // `pushgate send`: another type goes to its topic for the app's bundle id; a control
        // Apple would refuse is refused before anything is sent.
        let requestsBefore = apns.requests.count
        let widget = try pushgate.cli([
            "send", "--app", "com.example.alert-app", "--token", Self.token(0), "--json", #"{"aps":{"content-changed":true}}"#,
            "--push-type", "widgets", "--collapse-id", "w1",
        ])
        XCTAssertEqual(widget.status, 0, widget.stdout + widget.stderr)
        let sent = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(sent.headers["apns-push-type"], "widgets")
        XCTAssertEqual(sent.headers["apns-topic"], "com.example.alert-app.push-type.widgets")
        XCTAssertEqual(sent.headers["apns-priority"], "5")
        XCTAssertEqual(sent.headers["apns-collapse-id"], "w1")
        let ptt = try pushgate.cli([
            "send", "--app", "com.example.pushtotalk-app", "--token", Self.token(8), "--alert", "x", "--priority", "5",
        ])
        XCTAssertNotEqual(ptt.status, 0)
        XCTAssertTrue(ptt.stderr.contains("--priority must be 10 for pushtotalk pushes, not 5"), ptt.stderr)
        let badNumber = try pushgate.cli([
            "send", "--app", "com.example.alert-app", "--token", Self.token(0), "--alert", "x", "--expiration", "soon",
        ])
        XCTAssertNotEqual(badNumber.status, 0)
        XCTAssertTrue(badNumber.stderr.contains("--expiration"), badNumber.stderr)
        XCTAssertEqual(apns.requests.count, requestsBefore + 1, "only the widgets push was sent")
    }

    func testFCMControlsOfAPublishAndOfSend() throws {
        try startPushgate()
        try pushgate.addMockFCMApp(id: "com.example.android", fcm: fcm, ["--app-key", "key-android"])
        try client(key: "key-android", type: "fcm", token: "fcm-token:APA91b_one", interests: ["news"])
        let published = try send(
            "POST", "/publish_api/v1/instances/key-android/publishes/interests",
            #"{"interests":["news"],"fcm":{"data":{"k":"v"},"time_to_live":600,"collapse_key":"news","priority":"high"}}"#)
        XCTAssertEqual(published.status, 200, published.text)
        let deadline = Date().addingTimeInterval(10)
        while fcm.sendRequests.isEmpty, Date() < deadline { usleep(50_000) }
        XCTAssertFalse(fcm.sendRequests.isEmpty, pushgate.serveLog)
        let message = try XCTUnwrap(fcm.sendRequests.last?.bodyJSON?.objectValue?["message"]?.objectValue)
        XCTAssertEqual(fcm.sendRequests.last?.outcome, .answered(status: 200, reason: nil))
        XCTAssertEqual(
            message["android"],
            .object(["ttl": .string("600s"), "collapse_key": .string("news"), "priority": .string("HIGH")]))
        XCTAssertNil(message["time_to_live"], "the legacy names are not sent to HTTP v1")

        let sent = try pushgate.cli([
            "send", "--app", "com.example.android", "--token", "fcm-token:APA91b_one", "--alert", "x", "--ttl", "0",
            "--fcm-priority", "normal",
        ])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        let android = fcm.sendRequests.last?.bodyJSON?.objectValue?["message"]?.objectValue?["android"]
        XCTAssertEqual(android, .object(["ttl": .string("0s"), "priority": .string("NORMAL")]))
        let refused = try pushgate.cli([
            "send", "--app", "com.example.android", "--token", "fcm-token:APA91b_one", "--alert", "x", "--priority", "10",
        ])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("--priority is for APNs apps"), refused.stderr)
    }
}
