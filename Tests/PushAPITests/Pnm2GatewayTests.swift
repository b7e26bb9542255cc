import Foundation
import PushCore
import PushTesting
import XCTest

@testable import PushAPI

/// pnm2 in-process, over fakes: what each upstream outcome answers, the bounded retry, the
/// 403 for remote callers without keys, token reading per platform, and the FCM payload.
final class Pnm2GatewayTests: XCTestCase {
    /// Stored devices by (app, token) and accounts by selector.
    final class Directory: AcrobitsPushDirectory, @unchecked Sendable {
        var devices: [String: AddressedDevice] = [:]
        var accounts: [String: [AcrobitsChannel: AddressedDevice]] = [:]
        var accountReads: [String] = []
        func storedDevices(_ keys: [(appID: AppID, token: DeviceToken)]) throws -> [AddressedDevice?] {
            keys.map { devices["\($0.appID)/\($0.token.hex)"] }
        }
        func accountDevices(selector: String) throws -> [AcrobitsChannel: AddressedDevice] {
            accountReads.append(selector)
            return accounts[selector] ?? [:]
        }
    }

    /// Answers each batch from a script of results, recording what it was given.
    final class ScriptedDeliverer: Deliverer, @unchecked Sendable {
        var script: [[DeliveryResult]] = []
        var batches: [[PushCore.Notification]] = []
        func deliver(_ batch: [PushCore.Notification]) -> [DeliveryResult] {
            batches.append(batch)
            let results = script.isEmpty ? Array(repeating: .delivered(id: nil), count: batch.count) : script.removeFirst()
            return Array(results.prefix(batch.count))
        }
    }

    final class Pauses: @unchecked Sendable {
        var seconds: [Double] = []
    }

    let store = InMemoryTokenStore()
    let directory = Directory()
    let deliverer = ScriptedDeliverer()
    let keys = InMemorySenderKeys()
    let pauses = Pauses()
    let apnsHex = String(repeating: "ab", count: 32)

    override func setUpWithError() throws {
        try store.addApp(
            RegisteredApp(
                id: AppID("com.example.app")!,
                credentials: .apnsToken(teamID: "TEAM123456", keyID: "KEY1234567", privateKeyPEM: "-"),
                apnsTopic: "com.example.app"),
            replacing: false)
        try store.addApp(
            RegisteredApp(id: AppID("com.example.android")!, credentials: .fcmServiceAccount(json: "{}", projectID: "p")),
            replacing: false)
    }

    /// The monotonic clock the retry budget reads, in nanoseconds.
    let clock = TestNanoseconds()

    var gateway: RouteGroup {
        let pauses = pauses
        let clock = clock
        let gateway = SenderOnly(
            Pnm2Gateway(
                apps: store, directory: directory, deliverer: deliverer, subscriptions: .forDialectTests,
                pause: { seconds, _, then in
                    pauses.seconds.append(seconds)
                    then()
                },
                budget: Pnm2RetryBudget(answerWithinSeconds: 55, attemptSeconds: 30, now: { clock.now })),
            senders: SenderAuthorization(keys: keys, digest: { String($0.reversed()) }))
        return RouteGroup(errors: Pnm2Errors(), gateway.routes)
    }

    func send(
        _ body: String, path: String = "/pnm2/send", from address: String = "127.0.0.1", receivedAt: UInt64? = nil
    ) -> Response {
        var request = Request(
            method: "POST", path: path, headers: ["content-type": "application/json"], body: Array(body.utf8),
            remoteAddress: address)
        request.receivedAt = receivedAt
        return gateway.handle(request).settled()
    }

    func generic(_ token: String, app: String = "com.example.app") -> String {
        #"{"verb": "NotifyGenericTextMessage", "AppId": "\#(app)", "DeviceToken": "\#(token)", "Message": "m"}"#
    }

    func testWithoutKeysARemoteCallerIsForbidden() {
        let response = send(generic(apnsHex), from: "192.0.2.1")
        XCTAssertEqual(response.status, 403)
        XCTAssertTrue(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"code": 403, "response": "no sender keys"#))
        XCTAssertTrue(deliverer.batches.isEmpty)
    }

    func testEachOutcomeAnswersItsCode() {
        deliverer.script = [[
            .delivered(id: "x"), .deadToken(reason: "Unregistered", since: nil),
            .rejected(status: 413, reason: "PayloadTooLarge"), .rejected(status: 403, reason: "InvalidProviderToken"),
        ]]
        let body = "[" + (0..<4).map { _ in generic(apnsHex) }.joined(separator: ", ") + "]"
        let response = send(body, path: "/pnm2/multisend")
        XCTAssertEqual(response.status, 200)
        let replies = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]] ?? []
        XCTAssertEqual(replies.map { $0["code"] as? Int }, [200, 404, 400, 500])
        XCTAssertEqual(replies.map { $0["status"] as? Int }, [200, 404, 400, 500])
        XCTAssertTrue(pauses.seconds.isEmpty, "nothing to retry")
    }

    func testARetryLaterIsRetriedOnceAfterAtMostOneSecond() {
        deliverer.script = [
            [.retryLater(reason: "TooManyRequests", afterSeconds: 120), .delivered(id: nil)],
            [.retryLater(reason: "TooManyRequests", afterSeconds: 120)],
        ]
        let response = send("[\(generic(apnsHex)), \(generic(String(repeating: "cd", count: 32)))]", path: "/pnm2/multisend")
        let replies = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [[String: Any]] ?? []
        XCTAssertEqual(replies.map { $0["code"] as? Int }, [500, 200])
        XCTAssertEqual(pauses.seconds, [1.0])
        XCTAssertEqual(deliverer.batches.map(\.count), [2, 1], "only the deferred push is retried")

        deliverer.script = [[.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)], [.delivered(id: nil)]]
        XCTAssertEqual(String(decoding: send(generic(apnsHex)).body, as: UTF8.self), Pnm2Reply.sent.json)
        XCTAssertEqual(pauses.seconds.last, Pnm2Dispatch.defaultRetryPause)
    }

    func testNoRetryIsStartedThatNginxWouldNotWaitFor() {
        let second: UInt64 = 1_000_000_000
        clock.now = 1_000 * second
        // Arrived 24 s ago: 24 + the 0.2 s pause + 30 s for the attempt fits in 55 s.
        deliverer.script = [[.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)], [.delivered(id: nil)]]
        XCTAssertEqual(
            String(decoding: send(generic(apnsHex), receivedAt: clock.now - 24 * second).body, as: UTF8.self),
            Pnm2Reply.sent.json)
        XCTAssertEqual(pauses.seconds, [Pnm2Dispatch.defaultRetryPause])
        XCTAssertEqual(deliverer.batches.count, 2)

        // Arrived 25 s ago (a long wait in the lane, a slow first attempt): answered at once.
        deliverer.script = [[.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)], [.delivered(id: nil)]]
        let late = send(generic(apnsHex), receivedAt: clock.now - 25 * second)
        XCTAssertEqual(
            String(decoding: late.body, as: UTF8.self), Pnm2Reply.serviceError("upstream unavailable (ServiceUnavailable)").json)
        XCTAssertEqual(pauses.seconds.count, 1, "no second pause")
        XCTAssertEqual(deliverer.batches.count, 3, "no second attempt")

        // A request made in process has no arrival time: it counts from the send.
        deliverer.script = [[.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)], [.delivered(id: nil)]]
        XCTAssertEqual(String(decoding: send(generic(apnsHex)).body, as: UTF8.self), Pnm2Reply.sent.json)
        XCTAssertEqual(deliverer.batches.count, 5)
    }

    func testAStoredTokenCarriesItsDeviceSoADeadOneIsPruned() throws {
        let token = try XCTUnwrap(DeviceToken.fromHex(apnsHex))
        directory.devices["com.example.app/\(apnsHex)"] = AddressedDevice(
            id: 42, appID: AppID("com.example.app")!, token: token, sandbox: true)
        // Base64 (as the Token Reporter received it) reads to the same stored device.
        XCTAssertEqual(send(generic(token.base64)).status, 200)
        let notification = try XCTUnwrap(deliverer.batches.last?.first)
        XCTAssertEqual(notification.deviceID, 42)
        XCTAssertEqual(notification.sandbox, true)
        XCTAssertEqual(notification.token, token)
    }

    /// A multisend's pushes to one account read it once; each goes to the account's device of
    /// its app, the verb's channel first.
    func testARunOfPushesToOneAccountReadsItOnce() throws {
        let app = AppID("com.example.app")!
        let (calls, msgs) = (DeviceToken.fromHex(String(repeating: "c1", count: 32))!, DeviceToken.fromHex(apnsHex)!)
        directory.accounts["S1"] = [
            .calls: AddressedDevice(id: 1, appID: app, token: calls, sandbox: nil),
            .msgs: AddressedDevice(id: 2, appID: AppID("com.example.android")!, token: msgs, sandbox: nil),
        ]
        directory.accounts["S2"] = [.msgs: AddressedDevice(id: 3, appID: app, token: msgs, sandbox: nil)]
        let push = { (selector: String) in #"{"verb": "NotifyReprovision", "AppId": "com.example.app", "Selector": "\#(selector)"}"# }
        let answer = send("[\(push("S1")), \(push("S1")), \(push("S2")), \(push("S1"))]", path: "/pnm2/multisend")
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(directory.accountReads, ["S1", "S2", "S1"])
        XCTAssertEqual(deliverer.batches.last?.map(\.deviceID), [1, 1, 3, 1])
    }

    /// The app the send looked up and the subscription it read go out with the push, so that
    /// delivery reads neither again; a token from the store carries no subscription.
    func testEachPushCarriesItsAppAndAWebPushOneItsSubscription() throws {
        let web = RegisteredApp(
            id: AppID("com.example.web")!, credentials: .webPush(vapidPrivateKeyPEM: "-", subject: "mailto:a@b"))
        try store.addApp(web, replacing: false)
        let p256dh = [UInt8(4)] + [UInt8](repeating: 7, count: 64)
        let auth = [UInt8](repeating: 9, count: 16)
        let json =
            #"{"endpoint":"https://fcm.googleapis.com/fcm/send/x","keys":{"p256dh":"\#(Base64.encodeURLSafe(p256dh))","auth":"\#(Base64.encodeURLSafe(auth))"}}"#
        XCTAssertEqual(send(generic(Base64.encode(Array(json.utf8)), app: "com.example.web")).status, 200)
        let push = try XCTUnwrap(deliverer.batches.last?.first)
        XCTAssertEqual(push.app, web)
        let subscription = try XCTUnwrap(push.subscription)
        XCTAssertEqual(subscription.endpoint.url, "https://fcm.googleapis.com/fcm/send/x")
        XCTAssertEqual(push.token, subscription.token)
        XCTAssertNotNil(push.web)

        XCTAssertEqual(send(generic(apnsHex)).status, 200)
        XCTAssertEqual(deliverer.batches.last?.first?.app, try store.app(id: AppID("com.example.app")!))
        XCTAssertNil(deliverer.batches.last?.first?.subscription)
    }

    func testFCMTokensAndTheDataMessage() throws {
        let raw = "dXk:APA91bTest-token_1"
        let body = #"{"verb": "NotifyTextMessage", "AppId": "com.example.android", "DeviceToken": "\#(raw)", "Selector": "S1", "Badge": 4, "UserName": "bob", "Message": "hi", "Id": 17}"#
        XCTAssertEqual(send(body).status, 200)
        let notification = try XCTUnwrap(deliverer.batches.last?.first)
        XCTAssertEqual(notification.token.fcmText, raw)
        XCTAssertNil(notification.apns)
        XCTAssertEqual(
            notification.fcm?.fields["data"],
            .object([
                "verb": .string("NotifyTextMessage"), "Selector": .string("S1"), "Badge": .string("4"),
                "UserName": .string("bob"), "Message": .string("hi"), "Id": .string("17"),
            ]))
        // The same token base64-encoded, as the Token Reporter stores and SIPIS keeps it.
        _ = send(generic(Base64.encode(Array(raw.utf8)), app: "com.example.android"))
        XCTAssertEqual(deliverer.batches.last?.first?.token.fcmText, raw)
    }

    func testATextWithNothingToShowIsASilentPush() throws {
        _ = send(#"{"verb": "NotifyTextMessage", "AppId": "com.example.app", "DeviceToken": "\#(apnsHex)", "Selector": "S1"}"#)
        let apns = try XCTUnwrap(deliverer.batches.last?.first?.apns)
        XCTAssertEqual(apns.pushType, .background)
        XCTAssertEqual(apns.priority, 5)
        XCTAssertEqual(
            try JSONValue.parse(apns.payload),
            .object([
                "aps": .object(["content-available": .number(1)]), "verb": .string("NotifyTextMessage"),
                "Selector": .string("S1"),
            ]))
    }

    /// Names as the document writes them, else ignoring case, with or without fields it does
    /// not name beside them; a name written as documented wins over its other spellings.
    func testFieldNamesMatchAsWrittenElseIgnoringCase() throws {
        let bodies = [
            #"{"verb": "NotifyGenericTextMessage", "AppId": "com.example.app", "DeviceToken": "\#(apnsHex)", "Message": "m"}"#,
            #"{"VERB": "NotifyGenericTextMessage", "appid": "com.example.app", "devicetoken": "\#(apnsHex)", "message": "m"}"#,
            #"{"verb": "NotifyGenericTextMessage", "AppId": "com.example.app", "DeviceToken": "\#(apnsHex)", "Message": "m", "Priority": "high"}"#,
            #"{"verb": "NotifyGenericTextMessage", "appId": "com.example.app", "DeviceToken": "\#(apnsHex)", "message": "x", "Message": "m"}"#,
        ]
        for body in bodies {
            XCTAssertEqual(send(body).status, 200, body)
            let push = try XCTUnwrap(deliverer.batches.last?.first, body)
            XCTAssertEqual(push.token.hex, apnsHex, body)
            let apns = try XCTUnwrap(push.apns, body)
            guard case .object(let payload) = try JSONValue.parse(apns.payload),
                case .object(let aps)? = payload["aps"], case .object(let alert)? = aps["alert"]
            else { return XCTFail("no alert in \(body)") }
            XCTAssertEqual(alert["body"], .string("m"), body)
        }
        XCTAssertEqual(deliverer.batches.count, bodies.count)
    }

    /// An object named only with these skips the case-folded lookup, which is right only
    /// while no two of them are the same ignoring case.
    func testTheDocumentsFieldNamesDifferIgnoringCase() {
        let names = Pnm2PushFields.documentedNames
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, names.count)
    }

    func testRepliesEscapeLikeJSON() {
        XCTAssertEqual(
            Pnm2Reply(code: 404, response: "a \"b\"\\\n\u{1}").json,
            #"{"code": 404, "response": "a \"b\"\\\n\u0001", "status": 404}"#)
    }
}

/// A monotonic clock the test sets by hand.
final class TestNanoseconds: @unchecked Sendable {
    var now: UInt64 = 1_000_000_000
}
