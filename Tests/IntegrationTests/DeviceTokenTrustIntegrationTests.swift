import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// What a device's push token is trusted for, through the real nginx and `pushgate serve`
/// (docs/security.md, "Device tokens"): whoever registers a known APNs token again gets its
/// device's id back, as iOS must at every launch, but cannot move the device to a token of
/// its own, through the device API or the old client API, so a user's pushes keep going to
/// the user's phone. An FCM device's token still moves (the Android SDK's token refresh).
/// Runs on SQLite and on PostgreSQL.
final class DeviceTokenTrustIntegrationTests: BeamsTestCase, RunsOnPostgreSQL {
    static let instance = "1b880590-6301-4bb5-b34f-45db1c5f5644"
    static let device = "/device_api/v1/instances/\(instance)/devices"
    static let victimToken = String(repeating: "ab", count: 32)
    static let attackerToken = String(repeating: "cd", count: 32)

    var key = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        try startPushgate()
        try pushgate.addMockAPNsApp(id: "com.example.ios", ["--topic", "com.example.ios", "--app-key", Self.instance])
        try pushgate.addMockFCMApp(id: "com.example.android", fcm: fcm, ["--app-key", Self.instance])
        let added = try pushgate.cli(["keys", "add", "backend", "--dialect", "beams"])
        XCTAssertEqual(added.status, 0, added.stderr)
        key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func call(_ method: String, _ path: String, _ body: String? = nil, headers: [String: String] = [:]) throws
        -> HTTPClient.Response
    {
        var all = headers
        if body != nil { all["Content-Type"] = "application/json" }
        return try pushgate.client.request(method, path, headers: all, body: Array((body ?? "").utf8))
    }

    /// A device of `platform` registered with `token`, bound to `user` when given; its id.
    func register(_ platform: String, token: String, user: String? = nil) throws -> String {
        let registered = try call(
            "POST", "\(Self.device)/\(platform)", #"{"token":"\#(token)","bundleIdentifier":"com.example.ios"}"#)
        XCTAssertEqual(registered.status, 200, registered.text)
        let id = try XCTUnwrap(json(registered)["id"] as? String)
        if let user {
            let now = Int(Date().timeIntervalSince1970)
            let token = try BeamsTokenSigner.token(
                ["exp": now + 600, "iss": "https://\(Self.instance).pushnotifications.pusher.com", "sub": user],
                key: key)
            let bound = try call("PUT", "\(Self.device)/\(platform)/\(id)/user", headers: ["Authorization": "Bearer \(token)"])
            XCTAssertEqual(bound.status, 200, bound.text)
        }
        return id
    }

    func publishToAlice() throws {
        let published = try send(
            "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/users",
            #"{"users":["alice"],"apns":{"aps":{"alert":"for alice"}},"fcm":{"data":{"for":"alice"}}}"#,
            headers: ["Authorization": "Bearer \(key)"])
        XCTAssertEqual(published.status, 200, published.text)
        try waitForEmptyOutbox()
    }

    func testWhoeverKnowsAnAPNsTokenCannotMoveItsDeviceNorItsUsersPushes() throws {
        let victim = try register("apns", token: Self.victimToken, user: "alice")

        // iOS registers at every launch with its token alone and must get its device back:
        // so does whoever else knows the token.
        XCTAssertEqual(try register("apns", token: Self.victimToken), victim)

        let move = #"{"token":"\#(Self.attackerToken)"}"#
        try assertBeamsError(
            try call("PUT", "\(Self.device)/apns/\(victim)/token", move), 404, "Not found",
            contains: "only an FCM device's token")
        try assertBeamsError(try call("PUT", "\(Self.device)/fcm/\(victim)/token", move), 404, "Not found")
        try assertBeamsError(
            try send(
                "PUT", "/client_api/v1/clients/\(victim)/token",
                #"{"platform_type":"apns","token":"\#(Self.attackerToken)"}"#),
            400, "Bad request", contains: "Only an FCM or GCM client's token")
        let devices = try pushgate.storedDevices()
        XCTAssertEqual(devices.compactMap { $0["token"] as? String }, [Self.victimToken], "\(devices)")

        // alice's pushes still go to alice's phone, and none to the other token.
        try publishToAlice()
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(Self.victimToken)"])
        XCTAssertEqual(
            try json(try call("GET", "\(Self.device)/apns/\(victim)"))["userId"] as? String, "alice",
            "the binding stays with the device")
    }

    /// The Android SDK refreshes its token with `PUT …/token`, its user binding kept: an FCM
    /// token is trusted as far as its device (see docs/security.md).
    func testAnFCMDevicesTokenStillMovesWithItsUser() throws {
        let phone = try register("fcm", token: "fcm-token:APA91b_old", user: "alice")
        let refreshed = try call("PUT", "\(Self.device)/fcm/\(phone)/token", #"{"token":"fcm-token:APA91b_new"}"#)
        XCTAssertEqual(refreshed.status, 200, refreshed.text)
        try publishToAlice()
        XCTAssertEqual(fcm.sendRequests.compactMap(\.deviceToken), ["fcm-token:APA91b_new"])
    }
}
