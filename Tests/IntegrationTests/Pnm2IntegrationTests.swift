import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// The Acrobits HTTP push gateway (pnm2) through the real nginx and `pushgate serve`, pushing
/// to the repository's mock APNs and FCM: the document's curl examples with its response
/// bodies, each verb's payload as the upstream receives it, pruning, auth and bad input.
final class Pnm2IntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    static let alertApp = "com.example.softphone"
    static let voipApp = "com.example.softphone.pushkit"
    static let msgsHex = "51d97df57d8914fd5b5b04b9811ff019e2c4d6198007608ca6bd448f4c3192b6"
    static let callsHex = "a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0"
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"

    override func setUpWithError() throws {
        try super.setUpWithError()
        try startPushgate()
        try pushgate.addMockFCMApp(id: "valid.appid", fcm: fcm)
        try pushgate.addMockAPNsApp(id: Self.alertApp, ["--topic", Self.alertApp])
        try pushgate.addMockAPNsApp(id: Self.voipApp, ["--topic", "\(Self.alertApp).voip", "--push-type", "voip"])
    }

    private func postJSON(_ path: String, _ body: String, headers: [String: String] = [:]) throws -> HTTPClient.Response {
        try pushgate.client.post(path, contentType: "application/json", body: body, headers: headers)
    }

    /// The document's reply body with the `status` field the attribute list names appended.
    private func withStatus(_ documented: String) -> String {
        documented.replacingOccurrences(
            of: #"(\{"code": (\d+), "response": "(?:[^"\\]|\\.)*")\}"#, with: #"$1, "status": $2}"#,
            options: .regularExpression)
    }

    /// Reports the document's account: msgs on the alert app, calls on the PushKit app.
    private func reportAccount() throws {
        let msgs = DeviceToken.fromHex(Self.msgsHex)!.base64
        let calls = DeviceToken.fromHex(Self.callsHex)!.base64
        let body = "selector=\(Self.selector)&token_msgs=\(msgs.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&appid_msgs=\(Self.alertApp)&token_calls=\(calls.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&appid_calls=\(Self.voipApp)"
        let reported = try pushgate.client.post("/token/", contentType: "application/x-www-form-urlencoded", body: body)
        XCTAssertEqual(reported.status, 200, reported.text)
    }

    private func storedTokens() throws -> Set<String> {
        Set(try pushgate.storedDevices().compactMap { $0["reported_token"] as? String })
    }

    // MARK: The document's examples

    func testTheDocumentsSingleSendExample() throws {
        // Headers as curl sends them for the document's command line.
        let body = #"{"DeviceToken": "ValidToken", "Selector": "ValidSelector", "AppId": "valid.appid", "verb": "NotifyGenericTextMessage", "Message": "Some message"}"#
        let raw = "POST /pnm2/send HTTP/1.1\r\nHost: pnm.cloudsoftphone.com\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let response = try pushgate.client.send(Array(raw.utf8))
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(response.text, withStatus(#"{"code": 200, "response": "Your message was sent."}"#))

        let request = try XCTUnwrap(fcm.sendRequests.last)
        let message = try XCTUnwrap(request.bodyJSON?.objectValue?["message"]?.objectValue)
        XCTAssertEqual(message["token"], .string("ValidToken"))
        XCTAssertEqual(
            message["data"],
            .object([
                "verb": .string("NotifyGenericTextMessage"), "Selector": .string("ValidSelector"),
                "Message": .string("Some message"),
            ]))
        XCTAssertEqual(message["android"]?.objectValue?["priority"], .string("HIGH"))
    }

    func testTheDocumentsMultisendExamplesWithTheDeadTokenAndTheNullEntry() throws {
        // ValidToken2 is stored (reported base64, as the Token Reporter receives it) and dead upstream.
        let reported = try pushgate.client.get(
            "/token/?selector=ValidSelector2-000&token_msgs=\(Base64.encode(Array("ValidToken2".utf8)))&appid_msgs=valid.appid")
        XCTAssertEqual(reported.status, 200, reported.text)
        XCTAssertEqual(try pushgate.storedDevices().count, 1)
        fcm.setOutcome(.unregistered, forToken: "ValidToken2")

        let body = #"[{"DeviceToken": "ValidToken1", "Selector": "ValidSelector1", "AppId": "valid.appid", "verb": "NotifyGenericTextMessage", "Message": "some message"}, {"DeviceToken": "ValidToken2", "Selector": "ValidSelector2-000", "AppId": "valid.appid", "verb": "NotifyGenericTextMessage", "Message": "some other message"}, null]"#
        let response = try postJSON("/pnm2/multisend", body)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(
            response.text,
            withStatus(
                #"[{"code": 200, "response": "Your message was sent."}, {"code": 404, "response": "Pnmediator returned an error: ERR:404 Not Found\n"}, {"code": 400, "response": "Bad object you sent here"}]"#
            ))
        XCTAssertEqual(Set(fcm.sendRequests.compactMap { $0.bodyJSON?.objectValue?["message"]?.objectValue?["token"]?.stringValue }), ["ValidToken1", "ValidToken2"])
        XCTAssertEqual(try pushgate.storedDevices().count, 0, "the dead token's device is pruned")

        // The single object to multisend: a one-element list.
        let single = try postJSON(
            "/pnm2/multisend",
            #"{"DeviceToken": "ValidToken", "Selector": "ValidSelector", "AppId": "valid.appid", "verb": "NotifyGenericTextMessage", "Message": "Some message"}"#)
        XCTAssertEqual(single.status, 200)
        XCTAssertEqual(single.text, withStatus(#"[{"code": 200, "response": "Your message was sent."}]"#))

        // The single send's dead-token example.
        let dead = try postJSON(
            "/pnm2/send",
            #"{"DeviceToken": "ValidToken2", "AppId": "valid.appid", "verb": "NotifyGenericTextMessage", "Message": "x"}"#)
        XCTAssertEqual(dead.status, 200)
        XCTAssertEqual(dead.text, withStatus(#"{"code": 404, "response": "Pnmediator returned unknown error: ERR:404 Not Found"}"#))

        // `null` is no list: HTTP 400; `[null]` a one-element list.
        let null = try postJSON("/pnm2/multisend", "null")
        XCTAssertEqual(null.status, 400, null.text)
        let listOfNull = try postJSON("/pnm2/multisend", "[null]")
        XCTAssertEqual(listOfNull.status, 200)
        XCTAssertEqual(listOfNull.text, withStatus(#"[{"code": 400, "response": "Bad object you sent here"}]"#))
    }

    // MARK: What reaches the phone

    func testEachVerbsAPNsPayload() throws {
        let msgsBase64 = DeviceToken.fromHex(Self.msgsHex)!.base64
        let body = """
            [{"verb": "NotifyTextMessage", "AppId": "\(Self.alertApp)", "DeviceToken": "\(msgsBase64)", "Selector": "\(Self.selector)",
              "Badge": 3, "Sound": "s2.caf", "UserName": "alice", "UserDisplayName": "Alice A.", "Message": "Lunch?",
              "ContentType": "text/plain", "Id": "sms-17", "ThreadId": "alice@example.com"},
             {"verb": "NotifyGenericTextMessage", "AppId": "\(Self.alertApp)", "DeviceToken": "\(String(repeating: "b2", count: 32))", "Message": "Maintenance at 22:00", "Sound": "default"},
             {"verb": "NotifyReprovision", "AppId": "\(Self.alertApp)", "DeviceToken": "\(String(repeating: "c3", count: 32))", "Selector": "\(Self.selector)"},
             {"verb": "NotifyTextMessage", "AppId": "\(Self.voipApp)", "DeviceToken": "\(Self.callsHex)", "Selector": "\(Self.selector)", "Message": "Lunch?", "Badge": "2"}]
            """
        let response = try postJSON("/pnm2/multisend", body)
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.text, Pnm2Expect.list(Array(repeating: 200, count: 4)))
        let requests = Dictionary(apns.requests.map { ($0.path, $0) }, uniquingKeysWith: { _, last in last })
        XCTAssertEqual(requests.count, 4)

        let text = try XCTUnwrap(requests["/3/device/\(Self.msgsHex)"])
        XCTAssertEqual(text.headers["apns-topic"], Self.alertApp)
        XCTAssertEqual(text.headers["apns-push-type"], "alert")
        XCTAssertEqual(text.headers["apns-priority"], "10")
        XCTAssertEqual(
            text.bodyJSON,
            .object([
                "aps": .object([
                    "alert": .object(["title": .string("Alice A."), "body": .string("Lunch?")]), "badge": .number(3),
                    "sound": .string("s2.caf"), "thread-id": .string("alice@example.com"), "mutable-content": .number(1),
                ]),
                "verb": .string("NotifyTextMessage"), "Selector": .string(Self.selector), "Id": .string("sms-17"),
                "ContentType": .string("text/plain"),
            ]))

        let generic = try XCTUnwrap(requests["/3/device/\(String(repeating: "b2", count: 32))"])
        XCTAssertEqual(generic.headers["apns-push-type"], "alert")
        XCTAssertEqual(
            generic.bodyJSON,
            .object([
                "aps": .object(["alert": .object(["body": .string("Maintenance at 22:00")]), "sound": .string("default")]),
                "verb": .string("NotifyGenericTextMessage"),
            ]))

        let reprovision = try XCTUnwrap(requests["/3/device/\(String(repeating: "c3", count: 32))"])
        XCTAssertEqual(reprovision.headers["apns-push-type"], "background")
        XCTAssertEqual(reprovision.headers["apns-priority"], "5")
        XCTAssertEqual(
            reprovision.bodyJSON,
            .object([
                "aps": .object(["content-available": .number(1)]), "verb": .string("NotifyReprovision"),
                "Selector": .string(Self.selector),
            ]))

        let voip = try XCTUnwrap(requests["/3/device/\(Self.callsHex)"])
        XCTAssertEqual(voip.headers["apns-topic"], "\(Self.alertApp).voip")
        XCTAssertEqual(voip.headers["apns-push-type"], "voip")
        XCTAssertEqual(voip.headers["apns-priority"], "10")
        XCTAssertEqual(
            voip.bodyJSON,
            .object([
                "aps": .object([:]), "verb": .string("NotifyTextMessage"), "Selector": .string(Self.selector),
                "Message": .string("Lunch?"), "Badge": .number(2),
            ]))
    }

    func testASelectorAloneSendsToTheAccountsReportedToken() throws {
        try reportAccount()
        let text = try postJSON(
            "/pnm2/send", #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.alertApp)", "Selector": "\#(Self.selector)", "Message": "hi"}"#)
        XCTAssertEqual(text.text, Pnm2Expect.one(200))
        XCTAssertEqual(apns.requests.last?.path, "/3/device/\(Self.msgsHex)")
        let call = try postJSON(
            "/pnm2/send", #"{"verb": "NotifyReprovision", "AppId": "\#(Self.voipApp)", "Selector": "\#(Self.selector)"}"#)
        XCTAssertEqual(call.text, Pnm2Expect.one(200))
        XCTAssertEqual(apns.requests.last?.path, "/3/device/\(Self.callsHex)")
        XCTAssertEqual(apns.requests.last?.headers["apns-push-type"], "voip")
        // Each stored device records what its last push found.
        let outcomes = try pushgate.storedDevices().map { $0["last_outcome"] as? String }
        XCTAssertEqual(outcomes, ["delivered", "delivered"])

        let unknown = try postJSON(
            "/pnm2/send", #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.alertApp)", "Selector": "nobody", "Message": "hi"}"#)
        XCTAssertEqual(unknown.status, 200)
        XCTAssertTrue(unknown.text.hasPrefix(#"{"code": 400, "response": "Bad object you sent here: DeviceToken is required"#), unknown.text)
        XCTAssertEqual(apns.requests.count, 2)
    }

    func testADeadAPNsTokenPrunesTheStoredAccountDevice() throws {
        try reportAccount()
        // Dead since after the report: a token re-reported later would be alive and kept.
        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), forToken: Self.msgsHex)
        let response = try postJSON(
            "/pnm2/send",
            #"{"verb": "NotifyTextMessage", "AppId": "\#(Self.alertApp)", "DeviceToken": "\#(Self.msgsHex)", "Selector": "\#(Self.selector)", "Message": "hi"}"#)
        XCTAssertEqual(response.text, withStatus(#"{"code": 404, "response": "Pnmediator returned unknown error: ERR:404 Not Found"}"#))
        let remaining = try pushgate.storedDevices()
        XCTAssertEqual(remaining.count, 1, "only the dead msgs device goes")
        XCTAssertEqual(remaining.first?["app_id"] as? String, Self.voipApp)

        // A dead token the store never knew answers 404 too, and prunes nothing.
        let unknownHex = String(repeating: "d4", count: 32)
        apns.setOutcome(.expired, forToken: unknownHex)
        let unstored = try postJSON(
            "/pnm2/send", #"{"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.alertApp)", "DeviceToken": "\#(unknownHex)", "Message": "x"}"#)
        XCTAssertTrue(unstored.text.hasPrefix(#"{"code": 404"#), unstored.text)
        XCTAssertEqual(try pushgate.storedDevices().count, 1)
    }

    // MARK: Faults, auth and bad input

    func testUpstreamFaultsAnswer500AfterOneShortRetry() throws {
        let flaky = String(repeating: "e5", count: 32)
        let down = String(repeating: "f6", count: 32)
        apns.inject(.status(503, reason: "ServiceUnavailable"), forToken: flaky, times: 1)
        apns.inject(.status(503, reason: "ServiceUnavailable", retryAfter: 120), forToken: down)
        let started = Date()
        let response = try postJSON(
            "/pnm2/multisend",
            #"[{"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.alertApp)", "DeviceToken": "\#(flaky)", "Message": "x"}, {"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.alertApp)", "DeviceToken": "\#(down)", "Message": "x"}]"#)
        // Well short of the 120 s; how short is the machine's load.
        XCTAssertLessThan(Date().timeIntervalSince(started), 60, "Retry-After: 120 is not honoured in-request")
        XCTAssertEqual(response.status, 200)
        let replies = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]])
        XCTAssertEqual(replies.map { $0["code"] as? Int }, [200, 500], response.text)
        XCTAssertTrue((replies[1]["response"] as? String ?? "").contains("ServiceUnavailable"), response.text)
        XCTAssertEqual(apns.requests.filter { $0.path.hasSuffix(down) }.count, 2, "one retry, no more")
    }

    func testUnknownAppIdAndBadObjectsAnswerCode400AndSendNothing() throws {
        try reportAccount()
        let before = try storedTokens()
        let cases: [(String, String)] = [
            (#"{"verb": "NotifyGenericTextMessage", "AppId": "no.such.app", "DeviceToken": "ValidToken", "Message": "x"}"#,
             "AppId no.such.app is not registered at this push service"),
            (#"{"AppId": "valid.appid", "DeviceToken": "ValidToken", "Message": "x"}"#, "verb is required"),
            (#"{"verb": "NotifyGenericTextMessage", "DeviceToken": "ValidToken", "Message": "x"}"#, "AppId is required"),
            (#"{"verb": "NotifyGenericTextMessage", "AppId": "valid.appid", "Message": "x"}"#, "DeviceToken is required"),
            (#"{"verb": "NotifyTextMessage", "AppId": "valid.appid", "DeviceToken": "ValidToken"}"#,
             "Selector is required for NotifyTextMessage"),
            (#"{"verb": "NotifyReprovision", "AppId": "valid.appid", "DeviceToken": "ValidToken"}"#,
             "Selector is required for NotifyReprovision"),
            (#"{"verb": "NotifyIncomingCall", "AppId": "valid.appid", "DeviceToken": "ValidToken", "Selector": "s"}"#,
             "unknown verb (use NotifyTextMessage, NotifyGenericTextMessage or NotifyReprovision)"),
            (#"{"verb": "NotifyTextMessage", "AppId": "valid.appid", "DeviceToken": "ValidToken", "Selector": "s", "Badge": "many"}"#,
             "Badge must be a non-negative integer"),
            (#"{"verb": "NotifyTextMessage", "AppId": "valid.appid", "DeviceToken": 12, "Selector": "s"}"#, "DeviceToken must be a string"),
            (#"{"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.alertApp)", "DeviceToken": "not-a-token", "Message": "x"}"#,
             "DeviceToken is not an APNs device token (hex or base64)"),
            (#"{"verb": "NotifyGenericTextMessage", "AppId": "valid.appid", "DeviceToken": "ValidToken"}"#,
             "Message is required for NotifyGenericTextMessage"),
            (#"{"verb": "NotifyGenericTextMessage", "AppId": "bad app!", "DeviceToken": "ValidToken", "Message": "x"}"#,
             "AppId is not an application id"),
        ]
        for (body, detail) in cases {
            let response = try postJSON("/pnm2/send", body)
            XCTAssertEqual(response.status, 200, body)
            XCTAssertEqual(response.text, Pnm2Expect.one(400, "Bad object you sent here: \(detail)"), body)
        }
        let list = try postJSON("/pnm2/multisend", "[" + cases.map(\.0).joined(separator: ", ") + ", 7, \"x\"]")
        XCTAssertEqual(list.status, 200)
        let codes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]]).map { $0["code"] as? Int }
        XCTAssertEqual(codes, Array(repeating: 400, count: cases.count + 2))

        // Whole requests the endpoints cannot read: HTTP 400 (413 past the body limit).
        let valid = #"{"verb": "NotifyGenericTextMessage", "AppId": "valid.appid", "DeviceToken": "ValidToken", "Message": "x"}"#
        for path in ["/pnm2/send", "/pnm2/multisend"] {
            let get = try pushgate.client.get(path)
            XCTAssertEqual(get.status, 400, path)
            XCTAssertEqual(get.header("Allow"), "POST")
            XCTAssertEqual(get.text, Pnm2Expect.one(400, "use POST"))
            XCTAssertEqual(try pushgate.client.post(path, contentType: "text/plain", body: valid).status, 400)
            XCTAssertEqual(try pushgate.client.post(path, contentType: nil, body: valid).status, 400)
            XCTAssertEqual(
                try pushgate.client.post(path, contentType: "application/x-www-form-urlencoded", body: "verb=x").status, 400)
            let malformed = try postJSON(path, #"{"verb": "#)
            XCTAssertEqual(malformed.status, 400)
            XCTAssertEqual(malformed.text, Pnm2Expect.one(400, "Bad object you sent here: the body is not valid JSON"))
            let invalidUTF8 = try pushgate.client.post(
                path, contentType: "application/json", body: Array(#"{"verb": "Notify"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
            XCTAssertEqual(invalidUTF8.text, Pnm2Expect.one(400, "Bad object you sent here: the body is not valid UTF-8"))
            let huge = try postJSON(path, "[" + String(repeating: "null, ", count: 400_000) + "null]")
            XCTAssertEqual(huge.status, 413, path)
        }
        XCTAssertEqual(try postJSON("/pnm2/send", "[]").status, 400, "send takes one object")
        XCTAssertEqual(try postJSON("/pnm2/send", "null").status, 400)
        let tooMany = try postJSON("/pnm2/multisend", "[" + Array(repeating: "null", count: 5001).joined(separator: ",") + "]")
        XCTAssertEqual(tooMany.status, 400)
        XCTAssertEqual(try pushgate.client.post("/pnm2/nothing", contentType: "application/json", body: valid).status, 404)

        XCTAssertEqual(apns.requests.count, 0)
        XCTAssertEqual(fcm.sendRequests.count, 0)
        XCTAssertEqual(try storedTokens(), before, "the store is unchanged")
    }

    func testSenderKeysGateEveryAddress() throws {
        let added = try pushgate.cli(["keys", "add", "pbx"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let body = #"{"DeviceToken": "ValidToken", "AppId": "valid.appid", "verb": "NotifyGenericTextMessage", "Message": "m"}"#
        for path in ["/pnm2/send", "/pnm2/multisend"] {
            let anonymous = try postJSON(path, body)
            XCTAssertEqual(anonymous.status, 401, path)
            XCTAssertEqual(anonymous.header("WWW-Authenticate"), #"Bearer realm="pushgate", Basic realm="pushgate""#)
            XCTAssertEqual(anonymous.text, Pnm2Expect.one(401, "a sender key is required (Authorization: Bearer KEY)"))
            XCTAssertEqual(try postJSON(path, body, headers: ["Authorization": "Bearer nope"]).status, 401)
            XCTAssertEqual(try postJSON(path, body, headers: ["Authorization": "Bearer \(key)"]).status, 200)
            let basic = Base64.encode(Array("pbx:\(key)".utf8))
            XCTAssertEqual(try postJSON(path, body, headers: ["Authorization": "Basic \(basic)"]).status, 200)
        }
        let form = try pushgate.client.post(
            "/pnm2", contentType: "application/x-www-form-urlencoded",
            body: "verb=NotifyGenericTextMessage&AppId=valid.appid&DeviceToken=ValidToken&Message=m")
        XCTAssertEqual(form.status, 401)
        XCTAssertEqual(fcm.sendRequests.count, 4)
    }

    func testTheOldFormServiceAtPnm2() throws {
        let msgs = DeviceToken.fromHex(Self.msgsHex)!.base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        // As the old service's scripts post it: form fields, the token %-encoded base64.
        let sent = try pushgate.client.post(
            "/pnm2", contentType: "application/x-www-form-urlencoded",
            body: "verb=NotifyTextMessage&Selector=\(Self.selector)&Badge=1&UserName=bob&Message=Hi+there&AppId=\(Self.alertApp)&DeviceToken=\(msgs)&username=ext100&password=secret")
        XCTAssertEqual(sent.status, 200, sent.text)
        XCTAssertEqual(sent.text, Pnm2Expect.one(200))
        let request = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(request.path, "/3/device/\(Self.msgsHex)")
        let aps = request.bodyJSON?.objectValue?["aps"]?.objectValue
        XCTAssertEqual(aps?["alert"], .object(["title": .string("bob"), "body": .string("Hi there")]))
        XCTAssertEqual(aps?["badge"], .number(1))

        let missing = try pushgate.client.post(
            "/pnm2", contentType: "application/x-www-form-urlencoded", body: "verb=NotifyGenericTextMessage&AppId=valid.appid&Message=x")
        XCTAssertEqual(missing.status, 400)
        XCTAssertEqual(missing.text, Pnm2Expect.one(400, "Bad object you sent here: DeviceToken is required"))
        let json = try postJSON("/pnm2", #"{"verb": "NotifyGenericTextMessage"}"#)
        XCTAssertEqual(json.status, 400, "the old service is form-only")
        XCTAssertEqual(apns.requests.count, 1)
    }
}

/// Reply bodies as pnm2 renders them.
enum Pnm2Expect {
    static func one(_ code: Int, _ response: String = "Your message was sent.") -> String {
        #"{"code": \#(code), "response": "\#(response)", "status": \#(code)}"#
    }

    static func list(_ codes: [Int]) -> String {
        "[" + codes.map { one($0) }.joined(separator: ", ") + "]"
    }
}
