import Foundation
import MockUpstream
import XCTest

/// Path, header and payload checks: each error path answers Apple's status and reason.
final class APNsRequestValidationTests: XCTestCase {
    private var apns: MockAPNs!
    private var jwt = ""

    override func setUpWithError() throws {
        apns = try startAPNs { $0.allowedTopics = ["com.example.pushgate", "com.example.pushgate.voip"] }
        jwt = try APNsTestKey.token()
    }

    override func tearDown() {
        apns.shutdown()
    }

    private func assertRefused(
        headers: [String: String] = [:], body: [UInt8] = alertPayload, token: String = deviceToken(),
        status: Int, reason: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let response = try apns.send(to: token, providerToken: jwt, headers: headers, body: body)
        XCTAssertEqual(response.status, status, response.body, file: file, line: line)
        XCTAssertEqual(response.reason, reason, file: file, line: line)
    }

    func testPathAndMethod() throws {
        let wrongPath = try Curl.post(
            apns.baseURL + "/3/devices/" + deviceToken(), headers: ["authorization": "bearer \(jwt)"],
            body: alertPayload)
        XCTAssertEqual(wrongPath.status, 404)
        XCTAssertEqual(wrongPath.reason, "BadPath")

        let noToken = try Curl.post(
            apns.baseURL + "/3/device/", headers: ["authorization": "bearer \(jwt)"], body: alertPayload)
        XCTAssertEqual(noToken.status, 400)
        XCTAssertEqual(noToken.reason, "MissingDeviceToken")

        let get = try Curl.post(
            apns.url(token: deviceToken()), headers: ["authorization": "bearer \(jwt)"], extraArguments: ["-X", "GET"])
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.reason, "MethodNotAllowed")
    }

    func testDeviceTokenMustBeHex() throws {
        try assertRefused(token: "zz" + deviceToken().dropFirst(2), status: 400, reason: "BadDeviceToken")
        try assertRefused(token: "abc", status: 400, reason: "BadDeviceToken")
        XCTAssertEqual(try apns.send(to: deviceToken().uppercased(), providerToken: jwt).status, 200)
    }

    func testHeaderValues() throws {
        try assertRefused(headers: ["apns-push-type": "banner"], status: 400, reason: "InvalidPushType")
        try assertRefused(headers: ["apns-priority": "7"], status: 400, reason: "BadPriority")
        try assertRefused(
            headers: ["apns-push-type": "background", "apns-priority": "10"],
            body: #"{"aps":{"content-available":1}}"#.bytes,
            status: 400, reason: "BadPriority")
        try assertRefused(headers: ["apns-expiration": "tomorrow"], status: 400, reason: "BadExpirationDate")
        try assertRefused(
            headers: ["apns-collapse-id": String(repeating: "c", count: 65)], status: 400, reason: "BadCollapseId")
        try assertRefused(headers: ["apns-id": "not-a-uuid"], status: 400, reason: "BadMessageId")

        let accepted = try apns.send(
            providerToken: jwt,
            headers: [
                "apns-push-type": "background", "apns-priority": "5", "apns-expiration": "0",
                "apns-collapse-id": String(repeating: "c", count: 64),
            ], body: #"{"aps":{"content-available":1}}"#.bytes)
        XCTAssertEqual(accepted.status, 200, accepted.body)
    }

    func testDuplicateHeaders() throws {
        let response = try Curl.post(
            apns.url(token: deviceToken()),
            headers: ["authorization": "bearer \(jwt)", "apns-topic": "com.example.pushgate"],
            body: alertPayload, extraArguments: ["-H", "apns-priority: 10", "-H", "apns-priority: 5"])
        XCTAssertEqual(response.status, 400, "curl sends both apns-priority headers")
        XCTAssertEqual(response.reason, "DuplicateHeaders")
    }

    func testTopics() throws {
        try assertRefused(headers: ["apns-topic": ""], status: 400, reason: "MissingTopic")
        try assertRefused(headers: ["apns-topic": "com.example.other"], status: 400, reason: "TopicDisallowed")
        XCTAssertEqual(
            try apns.send(
                providerToken: jwt, headers: ["apns-topic": "com.example.pushgate.voip", "apns-push-type": "voip"]
            ).status, 200)
    }

    /// Each push type with a suffix goes only to a topic ending with it; pushtotalk only at
    /// priority 10 with expiration 0. Apple's list, written out here apart from the mock's own.
    func testPushTypesAndTheirTopics() throws {
        let bundle = "com.example.pushgate"
        let suffixes = [
            "location": ".location-query", "voip": ".voip", "complication": ".complication",
            "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity",
            "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets", "controls": ".push-type.controls",
        ]
        let open = try startAPNs { _ in }
        defer { open.shutdown() }
        func send(_ headers: [String: String]) throws -> MockHTTPResponseSummary {
            let response = try open.send(providerToken: jwt, headers: headers)
            return MockHTTPResponseSummary(status: response.status, reason: response.reason)
        }
        let ptt = ["apns-priority": "10", "apns-expiration": "0"]
        for (type, suffix) in suffixes {
            let extra = type == "pushtotalk" ? ptt : [:]
            let right = try send(["apns-push-type": type, "apns-topic": bundle + suffix].merging(extra) { $1 })
            XCTAssertEqual(right, MockHTTPResponseSummary(status: 200, reason: nil), type)
            let bare = try send(["apns-push-type": type, "apns-topic": bundle].merging(extra) { $1 })
            XCTAssertEqual(bare, MockHTTPResponseSummary(status: 400, reason: "InvalidPushType"), type)
            let onlySuffix = try send(["apns-push-type": type, "apns-topic": suffix].merging(extra) { $1 })
            XCTAssertEqual(onlySuffix.reason, "InvalidPushType", "\(type): a suffix alone names no app")
        }
        for type in ["alert", "background", "mdm"] {
            let priority = type == "background" ? "5" : "10"
            XCTAssertEqual(
                try send(["apns-push-type": type, "apns-topic": bundle, "apns-priority": priority]).status, 200, type)
        }
        let pttTopic = bundle + ".voip-ptt"
        XCTAssertEqual(
            try send(["apns-push-type": "pushtotalk", "apns-topic": pttTopic, "apns-priority": "5", "apns-expiration": "0"]),
            MockHTTPResponseSummary(status: 400, reason: "BadPriority"))
        XCTAssertEqual(
            try send(["apns-push-type": "pushtotalk", "apns-topic": pttTopic, "apns-expiration": "0"]).reason,
            "BadPriority", "no priority is not 10")
        XCTAssertEqual(
            try send(["apns-push-type": "pushtotalk", "apns-topic": pttTopic, "apns-priority": "10"]),
            MockHTTPResponseSummary(status: 400, reason: "BadExpirationDate"))
        XCTAssertEqual(
            try send([
                "apns-push-type": "pushtotalk", "apns-topic": pttTopic, "apns-priority": "10",
                "apns-expiration": "1900000000",
            ]).reason, "BadExpirationDate")
    }

    func testPayloads() throws {
        func payload(size: Int) -> [UInt8] {
            let prefix = #"{"aps":{"alert":""#
            let suffix = #""}}"#
            return (prefix + String(repeating: "x", count: size - prefix.utf8.count - suffix.utf8.count) + suffix).bytes
        }
        XCTAssertEqual(try apns.send(providerToken: jwt, body: payload(size: 4096)).status, 200)
        try assertRefused(body: payload(size: 4097), status: 413, reason: "PayloadTooLarge")
        let voip = ["apns-push-type": "voip", "apns-topic": "com.example.pushgate.voip"]
        XCTAssertEqual(try apns.send(providerToken: jwt, headers: voip, body: payload(size: 5120)).status, 200)
        try assertRefused(headers: voip, body: payload(size: 5121), status: 413, reason: "PayloadTooLarge")
        try assertRefused(body: [], status: 400, reason: "PayloadEmpty")
        try assertRefused(body: "hello".bytes, status: 400, reason: "BadPayload")
        try assertRefused(body: "[1,2]".bytes, status: 400, reason: "BadPayload")
    }

    func testEveryRefusalIsRecordedWithItsReason() throws {
        try assertRefused(headers: ["apns-priority": "7"], status: 400, reason: "BadPriority")
        let recorded = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(recorded.outcome, .answered(status: 400, reason: "BadPriority"))
        XCTAssertEqual(apns.log.counters.byStatus, [400: 1])
    }
}

private struct MockHTTPResponseSummary: Equatable {
    var status: Int
    var reason: String?
}
