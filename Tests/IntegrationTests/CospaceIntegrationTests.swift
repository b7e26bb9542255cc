import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// cospace `/api/push` and its push events through the real nginx and `pushgate serve`, with
/// the document's examples, delivered to the mock APNs and FCM through the outbox.
final class CospaceIntegrationTests: XCTestCase {
    static let appID = "39JSDKGJ38.de.cospace.app"
    static let fcmApp = "de.cospace.android"
    static let tokenA = "a6461732069737d42065496e" + String(repeating: "0", count: 35) + "f39ad"
    static let tokenB = "a6281e62e55932df9ec72829" + String(repeating: "1", count: 35) + "5e2d3"
    static let registrationID = "APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx..."

    var apns: MockAPNs!
    var fcm: MockFCM!
    var pushgate: PushgateInstance!
    var aliceID = ""

    override func setUpWithError() throws {
        apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, fcm: fcm).merging([
                "PUSHGATE_FCM_SENDER_ID": "4815162342", "PUSHGATE_COSPACE_FCM_APP": Self.fcmApp,
            ]) { _, own in own })
        try pushgate.addMockAPNsApp(id: Self.appID, ["--topic", "de.cospace.app"])
        try pushgate.addMockFCMApp(id: Self.fcmApp, fcm: fcm)
        aliceID = try addUser("alice", password: "alice-secret")
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        apns?.shutdown()
        fcm?.shutdown()
    }

    @discardableResult
    func cliOK(_ arguments: [String], stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line)
        throws -> String
    {
        let output = try pushgate.run(PushgateInstance.executable.path, arguments, stdin: stdin)
        XCTAssertEqual(output.status, 0, "\(arguments): \(output.stderr)", file: file, line: line)
        return output.stdout
    }

    func addUser(_ name: String, password: String) throws -> String {
        try cliOK(["users", "add", name, "--password-stdin"], stdin: password + "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func basic(_ user: String, _ password: String) -> [String: String] {
        ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    var alice: [String: String] { basic("alice", "alice-secret") }

    func post(_ body: String, as headers: [String: String]? = nil, contentType: String? = "application/json") throws
        -> HTTPClient.Response
    {
        try pushgate.client.post("/api/push", contentType: contentType, body: body, headers: headers ?? alice)
    }

    func assertStatus(
        _ response: HTTPClient.Response, _ code: Int, _ body: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(response.status, code, response.text, file: file, line: line)
        XCTAssertEqual(response.text, body, file: file, line: line)
        XCTAssertEqual(response.header("Content-Type"), "application/json", file: file, line: line)
    }

    func listing(_ headers: [String: String]? = nil) throws -> JSONValue {
        let response = try pushgate.client.get("/api/push", headers: headers ?? alice)
        XCTAssertEqual(response.status, 200, response.text)
        return try JSONValue.parse(response.body)
    }

    func deviceCount() throws -> Int { try pushgate.storedDevices().count }

    // MARK: The document's request examples

    func testTheDocumentsGCMExamplesVerbatim() throws {
        assertStatus(
            try post(
                """
                {
                    "system": "gcm",
                    "action": "add",
                    "registration_id": "APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx..."
                }
                """), 200, "{}")
        XCTAssertEqual(
            try listing(),
            try JSONValue.parse(
                Array(
                    #"{"gcm":{"sender_id":"4815162342","registration_ids":["APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx..."]},"apns":{"device_tokens":{}}}"#
                        .utf8)))
        let stored = try pushgate.storedDevices()
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.first?["app_id"] as? String, Self.fcmApp)
        assertStatus(
            try post(
                """
                {
                    "system": "gcm",
                    "action": "delete",
                    "registration_id": "APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx..."
                }
                """), 200, "{}")
        XCTAssertEqual(try deviceCount(), 0, "the last link gone, the device goes")
    }

    func testTheDocumentsAPNsExamplesVerbatimAndCompleted() throws {
        // Verbatim, the add example lacks a comma after "application_id" and both examples
        // elide the middle of the token: each refusal is the one its defect earns.
        let verbatimAdd = """
            {
                "system": "apns",
                "action": "add",
                "device_token": "a6461732069737d42065496e...f39ad",
                "sandbox": true,
                "application_id": "39JSDKGJ38.de.cospace.app"
                "apns_topic": "de.cospace.app.voip"
            }
            """
        assertStatus(try post(verbatimAdd), 400, #"{"status":"invalid-json"}"#)
        let commaFixed = verbatimAdd.replacingOccurrences(of: #"cospace.app""#, with: #"cospace.app","#)
        assertStatus(try post(commaFixed), 400, #"{"status":"invalid-device-token"}"#)
        let verbatimDelete = """
            {
                "system": "apns",
                "action": "delete",
                "device_token": "a6461732069737d42065496e...f39ad"
            }
            """
        assertStatus(try post(verbatimDelete), 400, #"{"status":"invalid-device-token"}"#)
        XCTAssertEqual(try deviceCount(), 0)

        // With whole tokens, the document's GET example comes back.
        let complete = commaFixed.replacingOccurrences(of: "a6461732069737d42065496e...f39ad", with: Self.tokenA)
        assertStatus(try post(complete), 200, "{}")
        assertStatus(
            try post(
                """
                {"system": "apns", "action": "add", "device_token": "\(Self.tokenB)", "sandbox": false,
                 "application_id": "39JSDKGJ38.de.cospace.app", "apns_topic": "de.cospace.app.voip"}
                """), 200, "{}")
        assertStatus(
            try post(#"{"system":"gcm","action":"add","registration_id":"APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx..."}"#),
            200, "{}")
        assertStatus(
            try post(#"{"system":"gcm","action":"add","registration_id":"Iausdj89apcoaSDdojfAsidfAs8d84-5621i..."}"#),
            200, "{}")
        let response = try pushgate.client.get("/api/push", headers: alice)
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(
            response.text,
            #"{"apns":{"device_tokens":{"\#(Self.tokenB)":{"apns_topic":"de.cospace.app.voip","application_id":"39JSDKGJ38.de.cospace.app","sandbox":false},"\#(Self.tokenA)":{"apns_topic":"de.cospace.app.voip","application_id":"39JSDKGJ38.de.cospace.app","sandbox":true}}},"gcm":{"registration_ids":["APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx...","Iausdj89apcoaSDdojfAsidfAs8d84-5621i..."],"sender_id":"4815162342"}}"#
        )

        // The add is idempotent; without a topic the bundle id is used and none is listed.
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(Self.tokenA)","sandbox":true,"application_id":"39JSDKGJ38.de.cospace.app"}"#
            ), 200, "{}")
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(Self.tokenA)","sandbox":true,"application_id":"39JSDKGJ38.de.cospace.app"}"#
            ), 200, "{}")
        let tokens = try listing().objectValue?["apns"]?.objectValue?["device_tokens"]?.objectValue
        XCTAssertEqual(
            tokens?[Self.tokenA], .object(["application_id": .string(Self.appID), "sandbox": .bool(true)]))
        XCTAssertEqual(try deviceCount(), 4)

        // The delete example with a whole token, and a delete of an absent token: both {}.
        let delete = verbatimDelete.replacingOccurrences(of: "a6461732069737d42065496e...f39ad", with: Self.tokenA)
        assertStatus(try post(delete), 200, "{}")
        assertStatus(try post(delete), 200, "{}")
        XCTAssertNil(try listing().objectValue?["apns"]?.objectValue?["device_tokens"]?.objectValue?[Self.tokenA])
        XCTAssertEqual(try deviceCount(), 3)
    }

    // MARK: Validation

    func testEveryStatusValueLeavesTheStoreUnchanged() throws {
        let token = Self.tokenA
        let cases: [(String, String)] = [
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"39JSDKGJ38.de.other.app"}"#,
                "unknown-appid"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"39JSDKGJ3.de.cospace.app"}"#,
                "invalid-appid"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"39JSDKGJ38.de"}"#,
                "invalid-appid"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"39JSDKGJ38_de.cospace.app"}"#,
                "invalid-appid"
            ),
            (#"{"system":"apns","action":"add","device_token":"\#(token)"}"#, "invalid-appid"),
            (#"{"system":"apns","action":"add","device_token":"\#(token)","application_id":42}"#, "invalid-appid"),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"\#(Self.appID)","apns_topic":"de/x"}"#,
                "invalid-apns-topic"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"\#(Self.appID)","apns_topic":"abcd"}"#,
                "invalid-apns-topic"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"\#(Self.appID)","apns_topic":"\#(String(repeating: "a", count: 101))"}"#,
                "invalid-apns-topic"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"\#(Self.appID)","sandbox":"true"}"#,
                "invalid-sandbox"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"\#(Self.appID)","sandbox":1}"#,
                "invalid-sandbox"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token.dropLast())","application_id":"\#(Self.appID)"}"#,
                "invalid-device-token"
            ),
            (
                #"{"system":"apns","action":"add","device_token":"\#(token.dropLast())g","application_id":"\#(Self.appID)"}"#,
                "invalid-device-token"
            ),
            (#"{"system":"apns","action":"add","application_id":"\#(Self.appID)"}"#, "invalid-device-token"),
            (#"{"system":"gcm","action":"add","registration_id":"123456789"}"#, "invalid-registration-id"),
            (
                #"{"system":"gcm","action":"add","registration_id":"\#(String(repeating: "x", count: 251))"}"#,
                "invalid-registration-id"
            ),
            (#"{"system":"gcm","action":"add","registration_id":"12345\n67890"}"#, "invalid-registration-id"),
            // Every control character, not only the line feed: FCM would refuse each one later.
            (#"{"system":"gcm","action":"add","registration_id":"APA91b\u0000bHun4MxP5e"}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"add","registration_id":"APA91bHun4MxP5e\r"}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"add","registration_id":"APA91b\tHun4MxP5e"}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"add","registration_id":"APA91bHun4\u007fMxP5e"}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"add","registration_id":"APA91bHun4\u0085MxP5e"}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"delete","registration_id":"APA91b\u0000bHun4MxP5e"}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"add","registration_id":1234567890}"#, "invalid-registration-id"),
            (#"{"system":"gcm","action":"add"}"#, "invalid-registration-id"),
            (#"{"system":"fcm","action":"add","registration_id":"1234567890"}"#, "invalid-system"),
            (#"{"action":"add","registration_id":"1234567890"}"#, "invalid-system"),
            (#"{"system":"gcm","action":"update","registration_id":"1234567890"}"#, "invalid-action"),
            (#"{"system":"gcm","registration_id":"1234567890"}"#, "invalid-action"),
            (#"{"system":"gcm","action":"add","registration_id":"1234567890""#, "invalid-json"),
            (#"["system","gcm"]"#, "invalid-json"),
            ("", "invalid-json"),
        ]
        for (body, status) in cases {
            assertStatus(try post(body), 400, #"{"status":"\#(status)"}"#)
        }
        let invalidUTF8 =
            Array(#"{"system":"gcm","action":"add","registration_id":"1234567890"#.utf8) + [0xFF, 0x22, 0x7D]
        let refused = try pushgate.client.post(
            "/api/push", contentType: "application/json", body: invalidUTF8, headers: alice)
        assertStatus(refused, 400, #"{"status":"invalid-json"}"#)
        XCTAssertEqual(try deviceCount(), 0)

        // Edges that pass: exactly 10 and 250 characters, 100-character topics, upper-case hex.
        assertStatus(try post(#"{"system":"gcm","action":"add","registration_id":"1234567890"}"#), 200, "{}")
        assertStatus(
            try post(#"{"system":"gcm","action":"add","registration_id":"\#(String(repeating: "é", count: 250))"}"#),
            200, "{}")
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(token.uppercased())","application_id":"\#(Self.appID)","apns_topic":"\#(String(repeating: "a", count: 100))"}"#
            ), 200, "{}")
        XCTAssertEqual(try deviceCount(), 3)
    }

    func testMethodsContentTypesAndSizes() throws {
        let put = try pushgate.client.request("PUT", "/api/push", headers: alice)
        assertStatus(put, 405, #"{"status":"method-not-allowed"}"#)
        XCTAssertEqual(put.header("Allow"), "GET, POST")
        let form = try post(
            "system=gcm&action=add&registration_id=1234567890", contentType: "application/x-www-form-urlencoded")
        assertStatus(form, 415, #"{"status":"unsupported-media-type"}"#)
        assertStatus(
            try post(#"{"system":"gcm","action":"add","registration_id":"1234567890"}"#, contentType: nil), 415,
            #"{"status":"unsupported-media-type"}"#)
        let huge =
            #"{"system":"gcm","action":"add","registration_id":"1234567890","pad":""#
            + String(repeating: " ", count: 20_000) + #""}"#
        assertStatus(try post(huge), 413, #"{"status":"body-too-large"}"#)
        let other = try pushgate.client.get("/api/push/other", headers: alice)
        assertStatus(other, 404, #"{"status":"not-found"}"#)
        XCTAssertEqual(try deviceCount(), 0)
    }

    // MARK: Authentication and isolation

    func testBasicAuthIsRequiredAndUsersSeeOnlyTheirOwn() throws {
        let body = #"{"system":"gcm","action":"add","registration_id":"1234567890"}"#
        for headers in [
            [:], basic("alice", "wrong"), basic("mallory", "alice-secret"), ["Authorization": "Bearer alice-secret"],
        ] {
            let response = try post(body, as: headers)
            assertStatus(response, 401, #"{"status":"unauthorized"}"#)
            XCTAssertEqual(response.header("WWW-Authenticate"), #"Basic realm="pushgate", charset="UTF-8""#)
            XCTAssertEqual(try pushgate.client.get("/api/push", headers: headers).status, 401)
        }
        XCTAssertEqual(try deviceCount(), 0)

        _ = try addUser("bob", password: "bob:secret with colon")
        let bob = basic("bob", "bob:secret with colon")
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(Self.tokenA)","application_id":"\#(Self.appID)"}"#),
            200, "{}")
        assertStatus(try post(body), 200, "{}")
        XCTAssertEqual(
            try listing(bob),
            .object([
                "gcm": .object(["sender_id": .string("4815162342"), "registration_ids": .array([])]),
                "apns": .object(["device_tokens": .object([:])]),
            ]))
        // Bob deleting Alice's entries answers {} and leaves them in place.
        assertStatus(
            try post(#"{"system":"apns","action":"delete","device_token":"\#(Self.tokenA)"}"#, as: bob), 200, "{}")
        assertStatus(
            try post(#"{"system":"gcm","action":"delete","registration_id":"1234567890"}"#, as: bob), 200, "{}")
        let mine = try listing()
        XCTAssertNotNil(mine.objectValue?["apns"]?.objectValue?["device_tokens"]?.objectValue?[Self.tokenA])
        XCTAssertEqual(mine.objectValue?["gcm"]?.objectValue?["registration_ids"], .array([.string("1234567890")]))

        // Both register the same token: one device, two owners; Alice leaving keeps it for Bob.
        assertStatus(try post(#"{"system":"gcm","action":"add","registration_id":"1234567890"}"#, as: bob), 200, "{}")
        XCTAssertEqual(try deviceCount(), 2)
        assertStatus(try post(#"{"system":"gcm","action":"delete","registration_id":"1234567890"}"#), 200, "{}")
        XCTAssertEqual(
            try listing(bob).objectValue?["gcm"]?.objectValue?["registration_ids"], .array([.string("1234567890")]))
        XCTAssertEqual(try deviceCount(), 2)

        // A changed password takes effect at once; removing a user removes what only it owned.
        try cliOK(["users", "passwd", "bob", "--password-stdin"], stdin: "new-password\n")
        XCTAssertEqual(try pushgate.client.get("/api/push", headers: bob).status, 401)
        XCTAssertEqual(try pushgate.client.get("/api/push", headers: basic("bob", "new-password")).status, 200)
        try cliOK(["users", "remove", "bob"])
        XCTAssertEqual(try deviceCount(), 1)
        let users = try cliOK(["users", "list"])
        XCTAssertEqual(users, "\(aliceID)\talice\n")
    }

    func testTheUsersCommandRefusesWhatItCannotStore() throws {
        let executable = PushgateInstance.executable.path
        let duplicate = try pushgate.run(executable, ["users", "add", "alice", "--password-stdin"], stdin: "x\n")
        XCTAssertEqual(duplicate.status, 1)
        XCTAssertTrue(duplicate.stderr.contains("a user named alice already exists"), duplicate.stderr)
        let noStdin = try pushgate.run(executable, ["users", "add", "carol"])
        XCTAssertNotEqual(noStdin.status, 0)
        XCTAssertTrue(noStdin.stderr.contains("--password-stdin"), noStdin.stderr)
        let colon = try pushgate.run(executable, ["users", "add", "car:ol", "--password-stdin"], stdin: "x\n")
        XCTAssertNotEqual(colon.status, 0)
        let empty = try pushgate.run(executable, ["users", "add", "carol", "--password-stdin"], stdin: "\n")
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("the password is empty"), empty.stderr)
        let unknown = try pushgate.run(executable, ["users", "remove", "carol"])
        XCTAssertEqual(unknown.status, 1)
        XCTAssertTrue(unknown.stderr.contains("no user named carol"), unknown.stderr)
        XCTAssertEqual(try cliOK(["users", "list"]), "\(aliceID)\talice\n")
        // The stored hash is the KDF's self-describing string, never the password.
        // (The file and its write-ahead log: serve's open connections may hold off a checkpoint.)
        let database = [pushgate.database, pushgate.database + "-wal"]
            .compactMap { try? String(contentsOfFile: $0, encoding: .isoLatin1) }.joined()
        XCTAssertFalse(database.contains("alice-secret"))
        XCTAssertTrue(database.contains("pbkdf2-sha256$600000$"))
    }

    // MARK: Push events

    /// The document's five events: the GCM content as sent, and what each platform receives.
    static let events: [(gcm: String, apns: String)] = [
        (
            #"{"owner":"OWNER","message":"fax_new","fax":"af729cc0-3251-11e2-81c1-0800200c9a66","phone":"+492215587412","page_count":"2"}"#,
            #"{"aps":{"content-available":1},"owner":"OWNER","message":"fax_new","fax":"af729cc0-3251-11e2-81c1-0800200c9a66","phone":"+492215587412","page_count":2}"#
        ),
        (
            #"{"owner":"OWNER","message":"recording_new","recording":"af729cc0-3251-11e2-81c1-0800200c9a66","phone":"+492215587412"}"#,
            #"{"aps":{"content-available":1},"owner":"OWNER","message":"recording_new","recording":"af729cc0-3251-11e2-81c1-0800200c9a66","phone":"+492215587412"}"#
        ),
        (
            #"{"owner":"OWNER","message":"dialplan_callreverse_start","phone_from":"+4989123248278","phone_to":"+492216698000"}"#,
            #"{"aps":{"content-available":1},"owner":"OWNER","message":"dialplan_callreverse_start","phone_from":"+4989123248278","phone_to":"+492216698000"}"#
        ),
        (
            #"{"owner":"OWNER","message":"dialplan_callreverse_stop","phone_from":"+4989123248278","phone_to":"+492216698000"}"#,
            #"{"aps":{"content-available":1},"owner":"OWNER","message":"dialplan_callreverse_stop","phone_from":"+4989123248278","phone_to":"+492216698000"}"#
        ),
        (
            #"{"owner":"OWNER","message":"chat_message","chat":"52a9fd3c-8aad-11e0-9138-0024e8f90cc0","uuid":"c1aa1566-84d7-11e2-a7a8-0024e8f90cc0","time":"1362407297","user":"1de7257a-4f34-11e0-ab6e-0024e8f90cc1","user_name":"John Doe","type":"text","text":"what's for lunch today?"}"#,
            #"{"aps":{"content-available":1},"owner":"OWNER","message":"chat_message","chat":"52a9fd3c-8aad-11e0-9138-0024e8f90cc0","uuid":"c1aa1566-84d7-11e2-a7a8-0024e8f90cc0","time":1362407297,"user":"1de7257a-4f34-11e0-ab6e-0024e8f90cc1","user_name":"John Doe","type":"text","text":"what's for lunch today?"}"#
        ),
    ]

    func registerAliceDevices() throws {
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(Self.tokenA)","application_id":"\#(Self.appID)","sandbox":true,"apns_topic":"de.cospace.app.voip"}"#
            ), 200, "{}")
        assertStatus(
            try post(#"{"system":"gcm","action":"add","registration_id":"dXk:APA91bTest-token_1"}"#), 200, "{}")
    }

    func testEachEventReachesEveryDeviceWithTheDocumentsPayload() throws {
        try registerAliceDevices()
        for (index, event) in Self.events.enumerated() {
            let gcm = event.gcm.replacingOccurrences(of: "OWNER", with: aliceID)
            let response = try pushgate.client.post("/api/push/events", contentType: "application/json", body: gcm)
            assertStatus(response, 200, #"{"queued":2}"#)
            XCTAssertTrue(apns.waitForRequests(count: index + 1), "APNs got no push for \(gcm)")
            let apnsRequest = try XCTUnwrap(apns.requests.last)
            XCTAssertEqual(apnsRequest.path, "/3/device/\(Self.tokenA)")
            XCTAssertEqual(
                apnsRequest.bodyJSON,
                try JSONValue.parse(Array(event.apns.replacingOccurrences(of: "OWNER", with: aliceID).utf8)))
            XCTAssertEqual(apnsRequest.headers["apns-push-type"], "background")
            XCTAssertEqual(apnsRequest.headers["apns-priority"], "5")
            XCTAssertEqual(apnsRequest.headers["apns-topic"], "de.cospace.app.voip", "the device's own topic")
            let deadline = Date().addingTimeInterval(10)
            while fcm.sendRequests.count < index + 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            let fcmRequest = try XCTUnwrap(fcm.sendRequests.last, "FCM got no push for \(gcm)")
            let message = fcmRequest.bodyJSON?.objectValue?["message"]?.objectValue
            XCTAssertEqual(message?["token"], .string("dXk:APA91bTest-token_1"))
            XCTAssertEqual(message?["data"], try JSONValue.parse(Array(gcm.utf8)), "every value a string")
        }
        XCTAssertEqual(apns.requests.count, 5)
        XCTAssertEqual(fcm.sendRequests.count, 5)
    }

    /// Each device's own sandbox choice and topic decide where and how its push goes.
    func testEventsHonourEachDevicesSandboxAndTopic() throws {
        let sandbox = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        defer { sandbox.shutdown() }
        pushgate.stop()
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, sandbox: sandbox).merging([
                "PUSHGATE_COSPACE_FCM_APP": Self.fcmApp
            ]) { _, own in own })
        try pushgate.addMockAPNsApp(id: Self.appID, ["--topic", "de.cospace.app"])
        aliceID = try addUser("alice", password: "alice-secret")
        try pushgate.start()
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(Self.tokenA)","application_id":"\#(Self.appID)","sandbox":true,"apns_topic":"de.cospace.app.voip"}"#
            ), 200, "{}")
        assertStatus(
            try post(
                #"{"system":"apns","action":"add","device_token":"\#(Self.tokenB)","application_id":"\#(Self.appID)"}"#),
            200, "{}")
        let gcm = Self.events[1].gcm.replacingOccurrences(of: "OWNER", with: aliceID)
        assertStatus(
            try pushgate.client.post("/api/push/events", contentType: "application/json", body: gcm), 200,
            #"{"queued":2}"#)
        XCTAssertTrue(sandbox.waitForRequests(count: 1))
        XCTAssertTrue(apns.waitForRequests(count: 1))
        XCTAssertEqual(sandbox.requests.map(\.path), ["/3/device/\(Self.tokenA)"])
        XCTAssertEqual(sandbox.requests.first?.headers["apns-topic"], "de.cospace.app.voip")
        XCTAssertEqual(apns.requests.map(\.path), ["/3/device/\(Self.tokenB)"])
        XCTAssertEqual(apns.requests.first?.headers["apns-topic"], "de.cospace.app", "the bundle id by default")
    }

    func testTheEventCommandQueuesTheSame() throws {
        try registerAliceDevices()
        let output = try cliOK([
            "event", "--owner", aliceID, "--message", "fax_new", "--field", "fax=af729cc0-3251-11e2-81c1-0800200c9a66",
            "--field", "phone=+492215587412", "--field", "page_count=2",
        ])
        XCTAssertEqual(output, "queued for 2 devices\n")
        XCTAssertTrue(apns.waitForRequests(count: 1))
        XCTAssertEqual(
            apns.requests.last?.bodyJSON,
            try JSONValue.parse(Array(Self.events[0].apns.replacingOccurrences(of: "OWNER", with: aliceID).utf8)))
        let refused = try pushgate.run(
            PushgateInstance.executable.path, ["event", "--owner", aliceID, "--message", "fax_new", "--field", "fax=x"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("missing-field: phone"), refused.stderr)
    }

    func testEventRefusals() throws {
        try registerAliceDevices()
        let owner = aliceID
        let cases: [(String, Int, String)] = [
            (#"{"owner":"\#(owner)","message":"fax_old"}"#, 400, #"{"status":"unknown-message"}"#),
            (#"{"owner":"\#(owner)"}"#, 400, #"{"field":"message","status":"missing-field"}"#),
            (
                #"{"owner":"\#(owner)","message":"recording_new","phone":"+49"}"#, 400,
                #"{"field":"recording","status":"missing-field"}"#
            ),
            (
                #"{"message":"recording_new","recording":"r","phone":"+49"}"#, 400,
                #"{"field":"owner","status":"missing-field"}"#
            ),
            (
                #"{"owner":"alice","message":"recording_new","recording":"r","phone":"+49"}"#, 400,
                #"{"field":"owner","status":"invalid-field"}"#
            ),
            (
                #"{"owner":"\#(owner)","message":"recording_new","recording":"r","phone":49}"#, 400,
                #"{"field":"phone","status":"invalid-field"}"#
            ),
            (
                #"{"owner":"\#(owner)","message":"fax_new","fax":"f","phone":"p","page_count":"two"}"#, 400,
                #"{"field":"page_count","status":"invalid-field"}"#
            ),
            (
                #"{"owner":"\#(owner)","message":"fax_new","fax":"f","phone":"p","page_count":2.5}"#, 400,
                #"{"field":"page_count","status":"invalid-field"}"#
            ),
            (
                #"{"owner":"\#(owner)","message":"recording_new","recording":"r","phone":"p","extra":"x"}"#, 400,
                #"{"field":"extra","status":"unknown-field"}"#
            ),
            (#"{"owner":"\#(owner)""#, 400, #"{"status":"invalid-json"}"#),
            (
                #"{"owner":"9aed5e94-3803-11e3-8475-0024e8f90cc0","message":"recording_new","recording":"r","phone":"p"}"#,
                404, #"{"status":"unknown-owner"}"#
            ),
        ]
        for (body, status, expected) in cases {
            assertStatus(
                try pushgate.client.post("/api/push/events", contentType: "application/json", body: body), status,
                expected)
        }
        let valid = #"{"owner":"\#(owner)","message":"recording_new","recording":"r","phone":"p"}"#
        assertStatus(
            try pushgate.client.post("/api/push/events", contentType: "text/plain", body: valid), 415,
            #"{"status":"unsupported-media-type"}"#)
        let padded = String(valid.dropLast()) + #","pad":""# + String(repeating: " ", count: 70_000) + #""}"#
        assertStatus(
            try pushgate.client.post("/api/push/events", contentType: "application/json", body: padded), 413,
            #"{"status":"body-too-large"}"#)
        let invalidUTF8 = Array(String(valid.dropLast(3)).utf8) + [0xC3, 0x28, 0x22, 0x7D]
        assertStatus(
            try pushgate.client.post("/api/push/events", contentType: "application/json", body: invalidUTF8), 400,
            #"{"status":"invalid-json"}"#)
        let get = try pushgate.client.get("/api/push/events")
        assertStatus(get, 405, #"{"status":"method-not-allowed"}"#)
        XCTAssertEqual(get.header("Allow"), "POST")
        // A number sent as a number is taken too.
        assertStatus(
            try pushgate.client.post(
                "/api/push/events", contentType: "application/json",
                body: #"{"owner":"\#(owner)","message":"fax_new","fax":"f","phone":"p","page_count":2}"#),
            200, #"{"queued":2}"#)
        // Only that one reaches the devices: every refusal above queued nothing.
        XCTAssertTrue(apns.waitForRequests(count: 1))
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(apns.requests.count, 1)
        XCTAssertEqual(apns.requests.last?.bodyJSON?.objectValue?["page_count"], .number(2))

        // With a sender key, the events endpoint wants it; /api/push keeps its user login.
        let key = try cliOK(["keys", "add", "backend"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let body = #"{"owner":"\#(owner)","message":"recording_new","recording":"r","phone":"p"}"#
        let unauthorized = try pushgate.client.post("/api/push/events", contentType: "application/json", body: body)
        assertStatus(unauthorized, 401, #"{"status":"unauthorized"}"#)
        XCTAssertNotNil(unauthorized.header("WWW-Authenticate"))
        assertStatus(
            try pushgate.client.post(
                "/api/push/events", contentType: "application/json", body: body,
                headers: ["Authorization": "Bearer \(key)"]),
            200, #"{"queued":2}"#)
    }
}
