import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// The Beams device API, users and publishes to users through nginx and `pushgate serve`:
/// each SDK's calls as the contract of the official SDKs has them (iOS 4, Android 1.9, the
/// Node and Python server SDKs), against one instance whose id is a UUID, as iOS insists.
final class BeamsDeviceIntegrationTests: BeamsTestCase {
    static let instance = "1b880590-6301-4bb5-b34f-45db1c5f5644"
    static let device = "/device_api/v1/instances/\(instance)"

    var push: MockWebPush!

    override func setUpWithError() throws {
        try super.setUpWithError()
        push = try MockWebPush.started()
        // The mock push service is the one listed: no web push leaves the machine.
        try startPushgate(environment: PushgateInstance.upstreams(apns: apns, fcm: fcm, webPush: push))
        try pushgate.addMockAPNsApp(id: "com.example.ios", ["--topic", "com.example.ios", "--app-key", Self.instance])
        try pushgate.addMockFCMApp(id: "com.example.android", fcm: fcm, ["--app-key", Self.instance])
    }

    override func tearDown() {
        super.tearDown()
        push?.shutdown()
        push = nil
    }

    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    /// A request as an SDK sends it: JSON only when there is a body.
    func call(_ method: String, _ path: String, _ body: String? = nil, headers: [String: String] = [:]) throws
        -> HTTPClient.Response
    {
        var all = headers
        if body != nil { all["Content-Type"] = "application/json" }
        return try pushgate.client.request(method, path, headers: all, body: Array((body ?? "").utf8))
    }

    /// iOS's registration; returns the response's body.
    func registerAPNs(_ token: String) throws -> [String: Any] {
        let response = try call(
            "POST", "\(Self.device)/devices/apns",
            #"{"token":"\#(token)","bundleIdentifier":"com.example.ios","metadata":{"sdkVersion":"4.0.0","iosVersion":"17.4.1"}}"#,
            headers: ["X-Pusher-Library": "push-notifications-swift 4.0.0"])
        XCTAssertEqual(response.status, 200, response.text)
        return try json(response)
    }

    func interests(_ path: String) throws -> [String: Any] {
        let response = try call("GET", path)
        XCTAssertEqual(response.status, 200, response.text)
        return try json(response)
    }

    // MARK: Devices and interests

    func testTheMobileSDKsCallSequences() throws {
        // iOS registers on every launch: the same token keeps its id, and its interests come
        // back as the initial set.
        let first = try registerAPNs(Self.token(1))
        let id = try XCTUnwrap(first["id"] as? String)
        XCTAssertEqual(first["initialInterestSet"] as? [String], [])
        let apnsDevice = "\(Self.device)/devices/apns/\(id)"
        let replaced = try call("PUT", "\(apnsDevice)/interests", #"{"interests":["donuts","private-news","donuts"]}"#)
        XCTAssertEqual(replaced.status, 200, replaced.text)
        let again = try registerAPNs(Self.token(1))
        XCTAssertEqual(again["id"] as? String, id)
        XCTAssertEqual(again["initialInterestSet"] as? [String], ["donuts", "private-news"])

        // One by one, no body (iOS still says JSON); `=@,;` as the web SDK encodes them.
        XCTAssertEqual(try call("POST", "\(apnsDevice)/interests/a%3Db%40c%2Cd%3Be").status, 200)
        XCTAssertEqual(
            try call("POST", "\(apnsDevice)/interests/zebra", headers: ["Content-Type": "application/json"]).status, 200
        )
        XCTAssertEqual(try call("DELETE", "\(apnsDevice)/interests/donuts").status, 200)
        XCTAssertEqual(try call("DELETE", "\(apnsDevice)/interests/never-subscribed").status, 200)
        let page = try interests("\(apnsDevice)/interests?limit=2")
        XCTAssertEqual(page["interests"] as? [String], ["a=b@c,d;e", "private-news"])
        let cursor = try XCTUnwrap((page["responseMetadata"] as? [String: Any])?["nextCursor"] as? String)
        let last = try interests(
            "\(apnsDevice)/interests?limit=2&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        )
        XCTAssertEqual(last["interests"] as? [String], ["zebra"])
        XCTAssertEqual((last["responseMetadata"] as? [String: Any])?.count, 0)
        try assertBeamsError(
            try call("GET", "\(apnsDevice)/interests?limit=101"), 400, "Bad request", contains: "limit")
        try assertBeamsError(
            try call("POST", "\(apnsDevice)/interests/a:b"), 400, "Bad request", contains: "Invalid interest name")
        let tooMany = (0...BeamsLimits.interestsPerClient).map { "\"i\($0)\"" }.joined(separator: ",")
        try assertBeamsError(
            try call("PUT", "\(apnsDevice)/interests", #"{"interests":[\#(tooMany)]}"#), 400, "Bad request",
            contains: "Interest set too large")

        // Metadata, and the device as Beams' GET shows it.
        XCTAssertEqual(
            try call("PUT", "\(apnsDevice)/metadata", #"{"sdkVersion":"4.0.1","iosVersion":"18.0.0"}"#).status, 200)
        let shown = try json(try call("GET", apnsDevice))
        XCTAssertEqual(shown["id"] as? String, id)
        XCTAssertEqual((shown["metadata"] as? [String: Any])?["iosVersion"] as? String, "18.0.0")

        // Android with its host override set to the bare origin: no /device_api/v1.
        let android = try call(
            "POST", "/instances/\(Self.instance)/devices/fcm",
            #"{"token":"fcm-token:APA91b_one","knownPreviousClientIds":[],"metadata":{"sdkVersion":"1.9.2","androidVersion":"14"}}"#
        )
        XCTAssertEqual(android.status, 200, android.text)
        let androidID = try XCTUnwrap(json(android)["id"] as? String)
        XCTAssertEqual(try json(android)["initialInterestSet"] as? [String], [])
        let fcmDevice = "/instances/\(Self.instance)/devices/fcm/\(androidID)"
        XCTAssertEqual(try call("POST", "\(fcmDevice)/interests/zebra").status, 200)
        XCTAssertEqual(try call("PUT", "\(fcmDevice)/token", #"{"token":"fcm-token:APA91b_two"}"#).status, 200)
        try assertBeamsError(try call("PUT", "\(fcmDevice)/token", #"{}"#), 400, "Bad request", contains: "token")
        // The id under the other platform, or an unknown id, is no device: the SDKs re-register.
        try assertBeamsError(
            try call("POST", "\(Self.device)/devices/apns/\(androidID)/interests/x"), 404, "Not found",
            contains: "Could not find the device")
        try assertBeamsError(
            try call(
                "PUT", "\(Self.device)/devices/fcm/00000000-0000-4000-8000-000000000000/token", #"{"token":"t:1"}"#),
            404, "Not found")
        try assertBeamsError(
            try call(
                "POST", "/device_api/v1/instances/no-such-instance/devices/apns", #"{"token":"\#(Self.token(2))"}"#),
            404, "Instance not found")

        // A publish to interests reaches each platform's devices in its half.
        let published = try send(
            "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/interests",
            #"{"interests":["zebra"],"apns":{"aps":{"alert":"Hi"}},"fcm":{"notification":{"title":"Hi"}}}"#)
        XCTAssertEqual(published.status, 200, published.text)
        try waitForEmptyOutbox()
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(Self.token(1))"])
        XCTAssertEqual(
            fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue?["token"]?.stringValue },
            ["fcm-token:APA91b_two"])

        // Delete answers 200 whether or not the device exists; afterwards it is gone.
        XCTAssertEqual(try call("DELETE", fcmDevice).status, 200)
        XCTAssertEqual(try call("DELETE", fcmDevice).status, 200)
        try assertBeamsError(try call("GET", fcmDevice), 404, "Not found")
        XCTAssertEqual(try call("DELETE", "\(Self.device)/devices/fcm/never-registered").status, 200)
        XCTAssertEqual(try call("DELETE", "\(Self.device)/devices/fcm/not%20one%20of%20ours").status, 200)
        try assertBeamsError(try call("GET", "\(Self.device)/devices/fcm/not%20one%20of%20ours"), 404, "Not found")

        // The browser's CORS preflight, answered by nginx; answers carry the origin.
        let preflight = try call(
            "OPTIONS", "\(Self.device)/devices/web",
            headers: ["Origin": "https://shop.example", "Access-Control-Request-Method": "POST"])
        XCTAssertEqual(preflight.status, 204, preflight.text)
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "*")
        XCTAssertTrue(preflight.header("Access-Control-Allow-Methods")?.contains("PUT") ?? false)
        XCTAssertTrue(preflight.header("Access-Control-Allow-Headers")?.contains("Authorization") ?? false)
        XCTAssertEqual(try call("GET", apnsDevice).header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(try call("GET", fcmDevice).header("Access-Control-Allow-Origin"), "*")
    }

    /// Bad input of every kind gets Beams' error shape and changes nothing.
    func testBadInputIsRefusedInBeamsShapeAndStoresNothing() throws {
        let devices = "\(Self.device)/devices/apns"
        let id = try XCTUnwrap(registerAPNs(Self.token(60))["id"] as? String)
        let cases: [(String, String, String?, [String: String], Int, String, String)] = [
            ("PATCH", devices, "{}", [:], 405, "Method not allowed", "POST"),
            ("POST", devices, #"{"token":"#, [:], 400, "Bad request", "not valid JSON"),
            ("POST", devices, "[1]", [:], 400, "Bad request", "not an object"),
            (
                "POST", devices, #"{"token":"\#(Self.token(61))"}"#, ["Content-Type": "text/plain"], 400,
                "Invalid content type", "application/json"
            ),
            ("POST", devices, #"{"bundleIdentifier":"x"}"#, [:], 400, "Bad request", "Missing APNs token"),
            ("POST", devices, #"{"token":7}"#, [:], 400, "Bad request", "Missing APNs token"),
            ("POST", devices, #"{"token":"zz"}"#, [:], 400, "Bad request", "hex"),
            ("POST", devices, #"{"token":"\#(Self.token(62))","metadata":"x"}"#, [:], 400, "Bad request", "metadata"),
            ("POST", devices, #"{"token":"a\u0000b"}"#, [:], 400, "Bad request", "Missing APNs token"),
            ("PUT", "\(devices)/\(id)/interests", #"{"interests":"a"}"#, [:], 400, "Bad request", "array"),
            ("PUT", "\(devices)/\(id)/interests", #"{"interests":[1]}"#, [:], 400, "Bad request", "interests[0]"),
            ("PUT", "\(devices)/\(id)/interests", #"{"interests":[""]}"#, [:], 400, "Bad request", "empty"),
            (
                "PUT", "\(devices)/\(id)/interests", #"{"interests":["\#(String(repeating: "x", count: 165))"]}"#, [:],
                400,
                "Bad request", "165 characters"
            ),
            ("POST", "\(devices)/\(id)/interests/%C3%A9", nil, [:], 400, "Bad request", "U+00E9"),
            ("PUT", "\(devices)/\(id)/metadata", "[]", [:], 400, "Bad request", "not an object"),
            ("GET", "\(devices)/\(id)/interests?cursor=a%3Ab", nil, [:], 400, "Bad request", "cursor"),
            ("GET", "\(devices)/\(id)/interests?limit=0", nil, [:], 400, "Bad request", "limit"),
            ("POST", "\(Self.device)/devices/gcm", "{}", [:], 404, "Not found", "apns, fcm and web"),
            ("GET", "\(Self.device)/nothing-here", nil, [:], 404, "Not found", "No such resource"),
        ]
        for (method, path, body, headers, status, title, fragment) in cases {
            var all = headers
            if body != nil, all["Content-Type"] == nil { all["Content-Type"] = "application/json" }
            let response = try pushgate.client.request(method, path, headers: all, body: Array((body ?? "").utf8))
            try assertBeamsError(response, status, title, contains: fragment)
        }
        let invalidUTF8 = try pushgate.client.request(
            "POST", devices, headers: ["Content-Type": "application/json"],
            body: Array(#"{"token":""#.utf8) + [0xFF] + Array(#""}"#.utf8))
        try assertBeamsError(invalidUTF8, 400, "Bad request", contains: "UTF-8")
        XCTAssertEqual(try interests("\(devices)/\(id)/interests")["interests"] as? [String], [])
        let listed = try JSONSerialization.jsonObject(
            with: Data(pushgate.cli(["tokens", "list", "--json"]).stdout.utf8))
        XCTAssertEqual((listed as? [Any])?.count, 1, "only the one registration")
    }

    /// A client of the old client API and a device of the device API with the same token are
    /// one device, with one set of interests.
    func testTheOldClientAPIAndTheDeviceAPIShareTheDevice() throws {
        let old = try client(key: Self.instance, type: "apns", token: Self.token(5), interests: ["news"])
        let registered = try registerAPNs(Self.token(5))
        XCTAssertEqual(registered["id"] as? String, old)
        XCTAssertEqual(registered["initialInterestSet"] as? [String], ["news"])
        // Today's names pass the device API; the old API keeps refusing the hyphen.
        XCTAssertEqual(try call("POST", "\(Self.device)/devices/apns/\(old)/interests/breaking-news").status, 200)
        try assertBeamsError(
            try send("POST", "/client_api/v1/clients/\(old)/interests/other-news", #"{"app_key":"\#(Self.instance)"}"#),
            400, "Bad request", contains: "hyphen")
        let devices = try pushgate.cli(["tokens", "list", "--json"])
        let listed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(devices.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(listed.count, 1, devices.stdout)
        let owners = try XCTUnwrap(listed.first?["owners"] as? [[String: Any]])
        XCTAssertEqual(owners.map { $0["client"] as? String }, [old])
        XCTAssertEqual(owners.first?["interests"] as? [String], ["breaking-news", "news"])
    }

    // MARK: Web

    /// `btoa(JSON.stringify(pushSubscription))`, as the web SDK sends it.
    static func webToken(endpoint: String) -> String {
        func base64URL(_ bytes: [UInt8]) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        // P-256's generator: a point on the curve, as a browser's key is.
        let p256dh =
            [0x04]
            + DeviceToken.fromHex(
                "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
                    + "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5")!.bytes
        let json =
            #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(base64URL(p256dh))","auth":"\#(base64URL(Array(repeating: 9, count: 16)))"}}"#
        return Data(json.utf8).base64EncodedString()
    }

    func testTheWebSDKsCallSequence() throws {
        try assertBeamsError(
            try call("GET", "\(Self.device)/web-vapid-public-key"), 404, "Not found", contains: "no web app")
        let added = try pushgate.cli([
            "apps", "add", "--id", "com.example.web", "--platform", "web", "--vapid-subject", "mailto:ops@example.com",
            "--app-key", Self.instance,
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        // The page's start(): the VAPID key, then the subscription.
        let vapid = try call(
            "GET",
            "/device_api/v1/instances/\(Self.instance.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)/web-vapid-public-key"
        )
        XCTAssertEqual(vapid.status, 200, vapid.text)
        XCTAssertEqual(vapid.header("Access-Control-Allow-Origin"), "*")
        let key = try XCTUnwrap(json(vapid)["vapidPublicKey"] as? String)
        XCTAssertTrue(try pushgate.cli(["apps", "list"]).stdout.contains(key), "the web app's own public key")

        let subscription = try push.createSubscription()
        let token = Data(subscription.json.utf8).base64EncodedString()
        let registered = try call(
            "POST", "\(Self.device)/devices/web", #"{"token":"\#(token)","metadata":{"sdkVersion":"2.1.0"}}"#)
        XCTAssertEqual(registered.status, 200, registered.text)
        let id = try XCTUnwrap(json(registered)["id"] as? String)
        XCTAssertTrue(id.hasPrefix("web-"), id)
        let webDevice = "\(Self.device)/devices/web/\(id)"
        XCTAssertEqual(try call("POST", "\(webDevice)/interests/a%3Db").status, 200)
        XCTAssertEqual(try interests("\(webDevice)/interests?limit=100")["interests"] as? [String], ["a=b"])

        // A push service pushgate may not reach, and a token that is no subscription.
        try assertBeamsError(
            try call(
                "POST", "\(Self.device)/devices/web",
                #"{"token":"\#(Self.webToken(endpoint: "https://fcm.googleapis.com/fcm/send/x"))"}"#),
            400, "Bad request", contains: "is not a push service this server sends to")
        try assertBeamsError(
            try call("POST", "\(Self.device)/devices/web", #"{"token":"eyJmb28iOiJiYXIifQ=="}"#), 400, "Bad request",
            contains: "PushSubscription")

        // A publish's web half reaches the browser with what the Beams service worker needs.
        let published = try send(
            "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/interests",
            #"{"interests":["a=b"],"web":{"notification":{"title":"Hi"},"data":{"k":"v"},"time_to_live":600}}"#)
        XCTAssertEqual(published.status, 200, published.text)
        let publishID = try XCTUnwrap(json(published)["publishId"] as? String)
        try waitForEmptyOutbox()
        let delivered = try XCTUnwrap(push.messages(for: subscription).first, "\(push.requests.map(\.outcome))")
        XCTAssertEqual(delivered.ttl, 600)
        XCTAssertEqual(
            try JSONValue.parse(delivered.plaintext),
            .object([
                "notification": .object(["title": .string("Hi")]),
                "data": .object([
                    "k": .string("v"),
                    "pusher": .object([
                        "instanceId": .string(Self.instance), "publishId": .string(publishID),
                        "hasDisplayableContent": .bool(true), "hasData": .bool(true),
                    ]),
                ]),
            ]))

        // stop(): the id encoded, 200, and gone.
        XCTAssertEqual(
            try call(
                "DELETE",
                "\(Self.device)/devices/web/\(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            ).status, 200)
        try assertBeamsError(try call("GET", webDevice), 404, "Not found")
    }

    // MARK: Users

    /// A Beams token as the server SDKs make it (see `BeamsTokenSigner`).
    func beamsToken(_ claims: [String: Any], key: String) throws -> String {
        try BeamsTokenSigner.token(claims, key: key)
    }

    func testUsersThroughTheServerSDKsAndTheirTokens() throws {
        let added = try pushgate.cli(["keys", "add", "backend", "--dialect", "beams"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(try pushgate.cli(["keys", "list"]).stdout.contains("verifies Beams tokens"))
        let issuer = "https://\(Self.instance).pushnotifications.pusher.com"
        let now = Int(Date().timeIntervalSince1970)
        let node = try beamsToken(["iat": now, "exp": now + 86_400, "iss": issuer, "sub": "alice"], key: key)
        let python = try beamsToken(["iss": issuer, "sub": "bob", "exp": now + 3_600], key: key)

        let alice = try XCTUnwrap(registerAPNs(Self.token(20))["id"] as? String)
        let bob = try XCTUnwrap(registerAPNs(Self.token(21))["id"] as? String)
        let aliceUser = "\(Self.device)/devices/apns/\(alice)/user"
        let cases: [(String?, Int, String, String)] = [
            (nil, 401, "Unauthorized", "missing"),
            ("Token \(node)", 401, "Unauthorized", "malformed"),
            (
                "Bearer \(try beamsToken(["exp": now + 60, "iss": issuer, "sub": "alice"], key: "not-the-key"))", 401,
                "Unauthorized", "signature"
            ),
            (
                "Bearer \(try beamsToken(["exp": now + 60, "iss": "https://other.pushnotifications.pusher.com", "sub": "alice"], key: key))",
                403, "Forbidden", "issuer"
            ),
            ("Bearer \(try beamsToken(["exp": now + 60, "iss": issuer], key: key))", 400, "Bad request", "(sub)"),
            ("Bearer \(try beamsToken(["iss": issuer, "sub": "alice"], key: key))", 400, "Bad request", "(exp)"),
            (
                "Bearer \(try beamsToken(["exp": now - 60, "iss": issuer, "sub": "alice"], key: key))", 401,
                "Unauthorized",
                "expired"
            ),
        ]
        for (authorization, status, title, fragment) in cases {
            try assertBeamsError(
                try call("PUT", aliceUser, headers: authorization.map { ["Authorization": $0] } ?? [:]), status, title,
                contains: fragment)
        }
        // iOS sends JSON's content type and no body, Android an empty body: both bind; the
        // same user again is fine, another user is refused.
        XCTAssertEqual(
            try call(
                "PUT", aliceUser, headers: ["Authorization": "Bearer \(node)", "Content-Type": "application/json"]
            )
            .status, 200)
        XCTAssertEqual(try call("PUT", aliceUser, headers: ["Authorization": "Bearer \(node)"]).status, 200)
        try assertBeamsError(
            try call("PUT", aliceUser, headers: ["Authorization": "Bearer \(python)"]), 400, "Bad request",
            contains: "already associated")
        XCTAssertEqual(
            try call("PUT", "\(Self.device)/devices/apns/\(bob)/user", headers: ["Authorization": "Bearer \(python)"])
                .status, 200)
        XCTAssertEqual(try json(try call("GET", "\(Self.device)/devices/apns/\(alice)"))["userId"] as? String, "alice")

        // The Python SDK's publish to users, with the key as its bearer.
        let publish = try send(
            "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/users",
            #"{"users":["alice","nobody"],"apns":{"aps":{"alert":"Hello World!"}}}"#,
            headers: ["Authorization": "Bearer \(key)"])
        XCTAssertEqual(publish.status, 200, publish.text)
        XCTAssertTrue((try json(publish)["publishId"] as? String)?.hasPrefix("pubid-") ?? false)
        try waitForEmptyOutbox()
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(Self.token(20))"])
        let thousandAndOne = (0...1_000).map { "\"u\($0)\"" }.joined(separator: ",")
        try assertBeamsError(
            try send(
                "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/users",
                #"{"users":[\#(thousandAndOne)],"apns":{"aps":{}}}"#, headers: ["Authorization": "Bearer \(key)"]),
            422, "Unprocessable Entity", contains: "1 to 1000")
        try assertBeamsError(
            try send(
                "POST", "/publish_api/v1/instances/\(Self.instance)/publishes/users",
                #"{"users":["alice"],"apns":{"aps":{}}}"#),
            401, "Unauthorized")

        // Removing users: the Python SDK's path, then the Node SDK's.
        try assertBeamsError(
            try call("DELETE", "/customer_api/v1/instances/\(Self.instance)/users/alice"), 401, "Unauthorized")
        let removed = try call(
            "DELETE", "/customer_api/v1/instances/\(Self.instance)/users/alice",
            headers: ["Authorization": "Bearer \(key)"])
        XCTAssertEqual(removed.status, 200, removed.text)
        try assertBeamsError(try call("GET", "\(Self.device)/devices/apns/\(alice)"), 404, "Not found")
        XCTAssertEqual(
            try call(
                "DELETE", "/user_api/v1/instances/\(Self.instance)/users/bob",
                headers: ["Authorization": "Bearer \(key)"]
            )
            .status, 200)
        try assertBeamsError(try call("GET", "\(Self.device)/devices/apns/\(bob)"), 404, "Not found")
        try assertBeamsError(
            try call("DELETE", "/user_api/v1/instances/nope/users/bob", headers: ["Authorization": "Bearer \(key)"]),
            404,
            "Instance not found")

        // At most 100 devices per user (and app).
        let carol = try beamsToken(["exp": now + 600, "iss": issuer, "sub": "carol"], key: key)
        for n in 0..<BeamsLimits.devicesPerUser {
            let id = try XCTUnwrap(registerAPNs(Self.token(100 + n))["id"] as? String)
            let bound = try call(
                "PUT", "\(Self.device)/devices/apns/\(id)/user", headers: ["Authorization": "Bearer \(carol)"])
            XCTAssertEqual(bound.status, 200, bound.text)
        }
        let extra = try XCTUnwrap(registerAPNs(Self.token(99))["id"] as? String)
        try assertBeamsError(
            try call("PUT", "\(Self.device)/devices/apns/\(extra)/user", headers: ["Authorization": "Bearer \(carol)"]),
            422, "Unprocessable Entity", contains: "maximum of 100 devices")
    }

    /// A key made before keys kept their secret cannot verify tokens, and says so; a key that
    /// may not reach the whole instance is not asked.
    func testOnlyKeysThatMaySendToTheInstanceVerifyTokens() throws {
        let scoped = try pushgate.cli(["keys", "add", "ios-only", "--app", "com.example.ios"])
        XCTAssertEqual(scoped.status, 0, scoped.stderr)
        let key = scoped.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = try XCTUnwrap(registerAPNs(Self.token(40))["id"] as? String)
        let now = Int(Date().timeIntervalSince1970)
        let token = try beamsToken(
            ["exp": now + 60, "iss": "https://\(Self.instance).pushnotifications.pusher.com", "sub": "dave"], key: key)
        try assertBeamsError(
            try call("PUT", "\(Self.device)/devices/apns/\(id)/user", headers: ["Authorization": "Bearer \(token)"]),
            401,
            "Unauthorized", contains: "No sender key here can verify")
    }
}
