import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// What a homeserver's users can make a notify cost, through the real nginx and `serve`: a
/// notify naming too many devices is refused from its bytes, before it is parsed; and notifies
/// wait in a lane of their own, so that a PBX's pnm2 send is answered while a slow APNs holds
/// fifty notifies of a thousand devices each.
///
/// No assertion measures a duration: "answered while the notifies wait" is checked as
/// "answered before any notify has returned", which a send queued behind them cannot fake.
final class MatrixVolumeIntegrationTests: MockUpstreamsTestCase {
    static let matrixApp = "im.example.app.ios.prod"
    static let pbxApp = "com.example.pbx.pushkit"
    /// How long the mock APNs holds each of the notifies' pushes: long against a send on a
    /// loaded machine.
    static let slowSeconds = 8

    private func start(environment: [String: String] = [:]) throws {
        try startPushgate(environment: environment)
        try pushgate.addMockAPNsApp(id: Self.matrixApp, ["--topic", "im.example.app", "--matrix"])
        try pushgate.addMockAPNsApp(id: Self.pbxApp, ["--topic", "com.example.pbx.voip", "--push-type", "voip"])
    }

    private static func notify(pushkey: String, devices: Int) -> String {
        let device = #"{"app_id": "\#(matrixApp)", "pushkey": "\#(pushkey)"}"#
        return #"{"notification": {"event_id": "$e", "room_id": "!r:x", "counts": {"unread": 1}, "devices": ["#
            + Array(repeating: device, count: devices).joined(separator: ", ") + "]}}"
    }

    func testANotifyOfTooManyDevicesIsRefusedBeforeItIsParsed() throws {
        try start()
        // 1,001 devices and then text that is no JSON: refused for its devices, which only a
        // count made before the parser could say (the parser would refuse the text first).
        let tooMany = Self.notify(pushkey: String(repeating: "ab", count: 32), devices: 1001)
        let refused = try pushgate.client.post(
            "/_matrix/push/v1/notify", contentType: "application/json", body: String(tooMany.dropLast()) + " not json")
        XCTAssertEqual(refused.status, 400, refused.text)
        XCTAssertEqual(
            try JSONValue.parse(refused.body),
            .object(["errcode": .string("M_BAD_JSON"), "error": .string("more than 1000 devices in one notification")]))
        // A hundred thousand of them, the same; a thousand are pushed.
        let flood = try pushgate.client.post(
            "/_matrix/push/v1/notify", contentType: "application/json",
            body: #"{"notification": {"devices": ["# + Array(repeating: "{}", count: 100_000).joined(separator: ",")
                + "]}}")
        XCTAssertEqual(flood.status, 400, flood.text)
        XCTAssertEqual(apns.requests.count, 0)
        let thousand = try pushgate.client.post(
            "/_matrix/push/v1/notify", contentType: "application/json",
            body: Self.notify(pushkey: String(repeating: "cd", count: 32), devices: 1000))
        XCTAssertEqual(thousand.status, 200, thousand.text)
        XCTAssertEqual(apns.requests.count, 1000)
    }

    func testAPBXSendIsAnsweredWhileNotifiesWaitOnASlowAPNs() throws {
        try start()
        let key = try pushgate.cli(["keys", "add", "pbx-1"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertFalse(key.isEmpty)
        let slowHex = String(repeating: "5e", count: 32)
        apns.inject(.delay(.seconds(Self.slowSeconds)), forToken: slowHex)

        let notifies = BackgroundSends()
        let client = HTTPClient(port: pushgate.port, timeoutSeconds: 120)
        let body = Self.notify(pushkey: slowHex, devices: 1000)
        for index in 0..<50 {
            notifies.post(client, "/_matrix/push/v1/notify", token: "notify-\(index)", body: body)
        }
        try pushgate.waitUntil("the first notify's pushes reached the mock") { apns.requests.count >= 1000 }
        XCTAssertEqual(notifies.returned, 0, "every notify still waits on the slow APNs")

        let pbxHex = String(repeating: "7c", count: 32)
        let send = try client.post(
            "/pnm2/send", contentType: "application/json",
            body:
                #"{"DeviceToken": "\#(pbxHex)", "AppId": "\#(Self.pbxApp)", "verb": "NotifyGenericTextMessage", "Message": "call"}"#,
            headers: ["Authorization": "Bearer \(key)"])
        let returnedBeforeTheSend = notifies.returned
        XCTAssertEqual(send.status, 200, send.text)
        XCTAssertEqual(send.text, #"{"code": 200, "response": "Your message was sent.", "status": 200}"#)
        XCTAssertEqual(returnedBeforeTheSend, 0, "the send was answered while every notify still waited")
        XCTAssertTrue(apns.requests.contains { $0.path == "/3/device/\(pbxHex)" })

        // The notifies each get an answer: pushed once APNs answers, or 503 when their lane had
        // no room for them in time; none is lost to nginx's time-out.
        let answers = notifies.all()
        XCTAssertEqual(answers.count, 50)
        for (name, result) in answers {
            guard case .success(let response) = result else { return XCTFail("\(name): \(result)") }
            XCTAssertTrue([200, 503].contains(response.status), "\(name): \(response.status) \(response.text)")
        }
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        XCTAssertNotNil(metrics.value("pushgate_busy_threads", ["lane": "matrix"]), "the lane has its own threads")
    }
}
