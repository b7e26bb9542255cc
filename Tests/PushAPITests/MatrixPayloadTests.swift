import PushCore
import XCTest

@testable import PushAPI

/// The Matrix dialect's payloads as Sygnal builds them (apnspushkin.py, gcmpushkin.py,
/// webpushpushkin.py), which Element iOS, Element Android and Element Web decode.
final class MatrixPayloadTests: XCTestCase {
    private func notification(_ json: String) throws -> MatrixNotification {
        try MatrixNotification.parse(Array(#"{"notification": \#(json)}"#.utf8))
    }

    private static let message = #"""
        {"event_id": "$ev1", "room_id": "!room:example.org", "type": "m.room.message",
         "sender": "@alice:example.org", "sender_display_name": "Alice", "room_name": "Lunch",
         "prio": "high", "content": {"msgtype": "m.text", "body": "Pizza?", "formatted_body": "<b>Pizza?</b>"},
         "counts": {"unread": 2, "missed_calls": 1},
         "devices": [{"app_id": "im.example.ios", "pushkey": "AAAA", "pushkey_ts": 1700000000,
                      "data": {"default_payload": {"aps": {"mutable-content": 1}, "custom": "x"}}, "tweaks": {"sound": "default"}}]}
        """#

    func testTheFullAPNsPayloadHasTheLocalisedAlertTheBadgeAndTheDefaultPayload() throws {
        let payload = try XCTUnwrap(MatrixAPNsPayload.payload(try notification(Self.message), defaultPayload: [
            "aps": .object(["mutable-content": .number(1)]), "custom": .string("x"),
        ]))
        XCTAssertEqual(
            JSONValue.object(payload),
            .object([
                "aps": .object([
                    "mutable-content": .number(1), "badge": .number(3),
                    "alert": .object([
                        "loc-key": .string("MSG_FROM_USER_IN_ROOM_WITH_CONTENT"),
                        "loc-args": .array([.string("Alice"), .string("Lunch"), .string("Pizza?")]),
                    ]),
                ]),
                "custom": .string("x"), "room_id": .string("!room:example.org"), "event_id": .string("$ev1"),
            ]))
    }

    func testEachEventTypesLocKey() throws {
        func alert(_ fields: String) throws -> MatrixAlert? {
            MatrixAlert(try notification(#"{"sender": "@bob:example.org", \#(fields), "devices": []}"#))
        }
        XCTAssertEqual(try alert(#""type": "m.room.message", "content": {"msgtype": "m.text", "body": "hi"}"#),
            MatrixAlert(key: "MSG_FROM_USER_WITH_CONTENT", arguments: ["@bob:example.org", "hi"]))
        XCTAssertEqual(try alert(##""type": "m.room.message", "room_alias": "#r:x", "content": {"msgtype": "m.emote", "body": "waves"}"##),
            MatrixAlert(key: "ACTION_FROM_USER_IN_ROOM", arguments: ["#r:x", "@bob:example.org", "waves"]))
        XCTAssertEqual(try alert(#""type": "m.room.message", "room_name": "R", "content": {"msgtype": "m.image", "body": "cat.png"}"#),
            MatrixAlert(key: "IMAGE_FROM_USER_IN_ROOM", arguments: ["@bob:example.org", "cat.png", "R"]))
        XCTAssertEqual(try alert(#""type": "m.room.encrypted", "room_name": "R", "content": {"ciphertext": "…"}"#),
            MatrixAlert(key: "MSG_FROM_USER_IN_ROOM", arguments: ["@bob:example.org", "R"]))
        XCTAssertEqual(try alert(#""type": "m.call.invite", "content": {"offer": {"sdp": "v=0\r\nm=audio 9\r\nm=video 9"}}"#),
            MatrixAlert(key: "VIDEO_CALL_FROM_USER", arguments: ["@bob:example.org"]))
        XCTAssertEqual(try alert(#""type": "m.call.invite", "content": {"offer": {"sdp": "v=0\r\nm=audio 9"}}"#),
            MatrixAlert(key: "VOICE_CALL_FROM_USER", arguments: ["@bob:example.org"]))
        XCTAssertEqual(try alert(#""type": "m.room.member", "membership": "invite", "user_is_target": true, "room_name": "R""#),
            MatrixAlert(key: "USER_INVITE_TO_NAMED_ROOM", arguments: ["@bob:example.org", "R"]))
        XCTAssertEqual(try alert(#""type": "m.room.member", "membership": "invite", "user_is_target": true"#),
            MatrixAlert(key: "USER_INVITE_TO_CHAT", arguments: ["@bob:example.org"]))
        XCTAssertNil(try alert(#""type": "m.room.member", "membership": "join", "user_is_target": true"#))
        XCTAssertEqual(try alert(#""type": "org.example.custom""#), MatrixAlert(key: "MSG_FROM_USER", arguments: ["@bob:example.org"]))
        XCTAssertEqual(MatrixAlert(try notification(#"{"type": "x", "devices": []}"#))?.arguments, [" "])
    }

    func testEventIDOnlyIsTheDefaultPayloadWithTheIDsAndCounts() throws {
        let eventOnly = try notification(#"{"event_id": "$e", "room_id": "!r:x", "prio": "low", "counts": {"unread": 4}, "devices": []}"#)
        XCTAssertTrue(eventOnly.isEventIDOnly)
        XCTAssertTrue(eventOnly.isLowPriority)
        let payload = try XCTUnwrap(MatrixAPNsPayload.payload(eventOnly, defaultPayload: ["aps": .object(["mutable-content": .number(1)])]))
        XCTAssertEqual(
            JSONValue.object(payload),
            .object([
                "aps": .object(["mutable-content": .number(1)]), "room_id": .string("!r:x"), "event_id": .string("$e"),
                "unread_count": .number(4),
            ]))
    }

    func testABadgeOnlyNotifyIsTheBadgeAloneAndNothingWithoutOne() throws {
        // Synapse after a read receipt: no event, a null type, empty id and sender.
        let badge = try notification(#"{"id": "", "type": null, "sender": "", "counts": {"unread": 0}, "devices": []}"#)
        XCTAssertEqual(try XCTUnwrap(MatrixAPNsPayload.payload(badge, defaultPayload: ["x": .string("y")])), ["aps": .object(["badge": .number(0)])])
        XCTAssertNil(MatrixAPNsPayload.payload(try notification(#"{"type": null, "devices": []}"#), defaultPayload: [:]))
        XCTAssertNil(MatrixFCMPayload.data(badge, defaultPayload: [:]), "a zero count and no event: nothing for FCM")
        // Empty strings are absent, as Sygnal's truthiness reads them.
        let empty = try notification(#"{"event_id": "", "room_id": "", "type": "", "sender": "", "counts": {"unread": 1}, "devices": []}"#)
        XCTAssertFalse(empty.isEventIDOnly)
        XCTAssertEqual(try XCTUnwrap(MatrixAPNsPayload.payload(empty, defaultPayload: ["x": .string("y")])), ["aps": .object(["badge": .number(1)])])
        XCTAssertEqual(MatrixAlert(try notification(#"{"type": "x", "sender": "", "devices": []}"#))?.arguments, [" "])
    }

    func testAPNsHeadersFollowTheAppsPushTypeAndPrio() throws {
        let credentials = AppCredentials.apnsToken(teamID: "T", keyID: "K", privateKeyPEM: "")
        let alertApp = RegisteredApp(id: AppID("a")!, credentials: credentials, apnsPushType: .alert)
        let voipApp = RegisteredApp(id: AppID("v")!, credentials: credentials, apnsPushType: .voip)
        let backgroundApp = RegisteredApp(id: AppID("b")!, credentials: credentials, apnsPushType: .background)
        var low = try notification(Self.message)
        low.isLowPriority = true
        let high = try notification(Self.message)
        XCTAssertEqual(MatrixAPNsPayload.message(high, defaultPayload: [:], app: alertApp)?.priority, 10)
        XCTAssertEqual(MatrixAPNsPayload.message(low, defaultPayload: [:], app: alertApp)?.priority, 5)
        XCTAssertEqual(MatrixAPNsPayload.message(high, defaultPayload: [:], app: voipApp)?.pushType, .voip)
        XCTAssertEqual(MatrixAPNsPayload.message(high, defaultPayload: [:], app: backgroundApp)?.priority, 5)
        let message = try XCTUnwrap(MatrixAPNsPayload.message(high, defaultPayload: [:], app: alertApp))
        XCTAssertNil(message.collapseID)
        XCTAssertNil(message.expiration)
    }

    func testALongMessageIsCutToFitAPNsLimit() throws {
        var long = try notification(Self.message)
        long.content = ["msgtype": .string("m.text"), "body": .string(String(repeating: "é", count: 5000))]
        let app = RegisteredApp(
            id: AppID("a")!, credentials: .apnsToken(teamID: "T", keyID: "K", privateKeyPEM: ""), apnsPushType: .alert)
        let message = try XCTUnwrap(MatrixAPNsPayload.message(long, defaultPayload: [:], app: app))
        XCTAssertLessThanOrEqual(message.payload.count, 4096)
        XCTAssertGreaterThan(message.payload.count, 3000, "cut to the limit, not far below")
        let args = try JSONValue.parse(message.payload).objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["loc-args"]
        XCTAssertEqual(args?.arrayValue?.first, .string("Alice"))
    }

    func testTheFCMDataIsStringsWithTheContentFlattened() throws {
        var low = try notification(Self.message)
        low.isLowPriority = true
        let message = try XCTUnwrap(MatrixFCMPayload.message(low, defaultPayload: ["n": .number(1), "s": .string("t")]))
        XCTAssertEqual(message.fields["android"], .object(["priority": .string("normal")]))
        XCTAssertEqual(
            message.fields["data"],
            .object([
                "n": .string("1"), "s": .string("t"), "event_id": .string("$ev1"), "type": .string("m.room.message"),
                "sender": .string("@alice:example.org"), "sender_display_name": .string("Alice"),
                "room_name": .string("Lunch"), "room_id": .string("!room:example.org"),
                "content_msgtype": .string("m.text"), "content_body": .string("Pizza?"),
                "content_formatted_body": .string("<b>Pizza?</b>"), "prio": .string("normal"),
                "unread": .string("2"), "missed_calls": .string("1"),
            ]))
        XCTAssertNil(message.fields["notification"])
        XCTAssertEqual(MatrixFCMPayload.cut(String(repeating: "a", count: 2000)).utf8.count, 1024)
        XCTAssertTrue(MatrixFCMPayload.cut(String(repeating: "a", count: 2000)).hasSuffix("…"))
    }

    func testTheWebPushPayloadDropsFormattedBodyAndFollowsPrio() throws {
        var low = try notification(Self.message)
        low.isLowPriority = true
        let message = MatrixWebPushPayload.message(low, defaultPayload: ["d": .bool(true)])
        XCTAssertEqual(message.urgency, .low)
        XCTAssertEqual(message.ttl, 900)
        XCTAssertEqual(
            try JSONValue.parse(message.payload),
            .object([
                "d": .bool(true), "room_id": .string("!room:example.org"), "room_name": .string("Lunch"),
                "event_id": .string("$ev1"), "sender": .string("@alice:example.org"),
                "sender_display_name": .string("Alice"), "type": .string("m.room.message"),
                "unread": .number(2), "missed_calls": .number(1),
                "content": .object(["msgtype": .string("m.text"), "body": .string("Pizza?")]),
            ]))
        XCTAssertEqual(MatrixWebPushPayload.message(try notification(Self.message), defaultPayload: [:]).urgency, .normal)
    }

    func testMalformedNotificationsAreRefusedAsSygnalRefusesThem() {
        func refusal(_ body: String) -> MatrixRefusal? {
            do {
                _ = try MatrixNotification.parse(Array(body.utf8))
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(refusal("{"), .notJSON)
        XCTAssertEqual(refusal("[]")?.message, "Invalid notification: expecting object in 'notification' key")
        XCTAssertEqual(refusal(#"{"notification": {}}"#)?.message, "Expected list in 'devices' key")
        XCTAssertEqual(refusal(#"{"notification": {"devices": [{"app_id": "a"}]}}"#)?.message, "Device with missing or non-string pushkey")
        XCTAssertEqual(refusal(#"{"notification": {"devices": [{"pushkey": "p", "app_id": 1}]}}"#)?.message, "Device with missing or non-string app_id")
        XCTAssertEqual(refusal(#"{"notification": {"devices": [{"app_id": "a", "pushkey": "p", "pushkey_ts": "x"}]}}"#)?.status, 400)
        XCTAssertEqual(refusal(#"{"notification": {"devices": [{"app_id": "a", "pushkey": "p", "data": []}]}}"#)?.status, 400)
        XCTAssertEqual(refusal(#"{"notification": {"counts": {"unread": "2"}, "devices": []}}"#)?.message, "unread is of invalid type")
        XCTAssertNil(refusal(#"{"notification": {"devices": [], "unknown": {"x": 1}, "type": null, "prio": "urgent"}, "extra": 1}"#))
    }

    func testPushkeysAreReadForTheAppsPlatform() throws {
        let hex = String(repeating: "ab", count: 32)
        let token = DeviceToken.fromHex(hex)!
        func device(_ pushkey: String, data: [String: JSONValue]? = nil) -> MatrixNotification.Device {
            .init(appID: "a", pushkey: pushkey, pushkeyTS: 0, data: data, tweaks: [:])
        }
        XCTAssertEqual(try MatrixPushkey.token(device(token.base64), platform: .apns).get(), token)
        XCTAssertEqual(try MatrixPushkey.token(device(hex), platform: .apns).get(), token)
        XCTAssertEqual(try MatrixPushkey.token(device(hex.uppercased()), platform: .apns).get(), token)
        XCTAssertThrowsError(try MatrixPushkey.token(device("not a token!"), platform: .apns).get())
        XCTAssertThrowsError(try MatrixPushkey.token(device("AAAA"), platform: .apns).get(), "3 bytes: no APNs token")
        XCTAssertEqual(try MatrixPushkey.token(device("fcm-token:APA91b"), platform: .fcm).get().fcmText, "fcm-token:APA91b")
        XCTAssertThrowsError(try MatrixPushkey.token(device("has space in it"), platform: .fcm).get())
        let p256dh = [UInt8(4)] + [UInt8](repeating: 7, count: 64)
        let auth = [UInt8](repeating: 9, count: 16)
        let web = try MatrixPushkey.token(
            device(Base64.encodeURLSafe(p256dh), data: ["endpoint": .string("https://push.example/s/1"), "auth": .string(Base64.encodeURLSafe(auth))]),
            platform: .web
        ).get()
        XCTAssertEqual(WebPushSubscription(token: web)?.endpoint.url, "https://push.example/s/1")
        XCTAssertThrowsError(try MatrixPushkey.token(device(Base64.encodeURLSafe(p256dh)), platform: .web).get())
    }

    func testTheHomeserverListTakesAddressesAndRanges() throws {
        let list = try MatrixHomeservers(listing: "10.0.0.5, 192.168.0.0/16 2001:db8::/32")
        XCTAssertTrue(list.allows("10.0.0.5"))
        XCTAssertFalse(list.allows("10.0.0.6"))
        XCTAssertTrue(list.allows("192.168.200.1"))
        XCTAssertTrue(list.allows("::ffff:192.168.1.1"))
        XCTAssertTrue(list.allows("2001:db8::1"))
        XCTAssertFalse(list.allows("2001:db9::1"))
        XCTAssertFalse(list.allows("not an address"))
        XCTAssertFalse(list.isOpenToEveryone)
        XCTAssertTrue(MatrixHomeservers.loopback.allows("127.0.0.1"))
        XCTAssertTrue(MatrixHomeservers.loopback.allows("::1"))
        XCTAssertFalse(MatrixHomeservers.loopback.allows("10.0.0.1"))
        XCTAssertTrue(try MatrixHomeservers(listing: "0.0.0.0/0").isOpenToEveryone)
        XCTAssertThrowsError(try MatrixHomeservers(listing: "10.0.0.0/33"))
        XCTAssertThrowsError(try MatrixHomeservers(listing: "example.org"))
        XCTAssertThrowsError(try MatrixHomeservers(listing: " , "))
    }
}
