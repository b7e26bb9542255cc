import Foundation
import MockUpstream
import PushTesting
import XCTest

/// `pushgate send` and `apps check` as an operator runs them, against the repository's mock
/// APNs and FCM over HTTP/2 and TLS (trusted through PUSHGATE_CA_FILE, like a private CA).
final class DeliveryCommandTests: XCTestCase {
    static let token = String(repeating: "a1", count: 32)

    private func instance(apns: MockAPNs? = nil, fcm: MockFCM? = nil) throws -> PushgateInstance {
        try PushgateInstance(environment: PushgateInstance.upstreams(apns: apns, fcm: fcm))
    }

    private func addAPNsApp(_ pushgate: PushgateInstance, topic: String = "com.example.pushgate") throws {
        try pushgate.addMockAPNsApp(id: "com.example.pushgate", ["--topic", topic])
    }

    func testSendDeliversToMockAPNsWithAVerifiedProviderToken() throws {
        let apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        defer { apns.shutdown() }
        let pushgate = try instance(apns: apns)
        try addAPNsApp(pushgate)

        let sent = try pushgate.cli(["send", "--app", "com.example.pushgate", "--token", Self.token, "--alert", "Hello"])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertTrue(sent.stdout.hasPrefix("delivered"), sent.stdout)
        let request = try XCTUnwrap(apns.requests.last)
        XCTAssertEqual(request.path, "/3/device/\(Self.token)")
        XCTAssertEqual(request.auth, .providerToken(keyID: MockFixtures.apnsKeyID))
        XCTAssertEqual(request.headers["apns-topic"], "com.example.pushgate")
        XCTAssertEqual(request.headers["apns-push-type"], "alert")
        XCTAssertEqual(request.headers["apns-priority"], "10")
        XCTAssertEqual(request.bodyJSON?.objectValue?["aps"]?.objectValue?["alert"], .string("Hello"))
    }

    func testSendReportsADeadTokenAndARefusedTopic() throws {
        let apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        defer { apns.shutdown() }
        let pushgate = try instance(apns: apns)
        try addAPNsApp(pushgate)
        apns.setOutcome(.unregistered(since: 1_700_000_000_000), forToken: Self.token)
        let dead = try pushgate.cli(["send", "--app", "com.example.pushgate", "--token", Self.token, "--json", #"{"aps":{"alert":"x"}}"#])
        XCTAssertEqual(dead.status, 1)
        XCTAssertTrue(dead.stdout.contains("dead token: Unregistered"), dead.stdout)

        let refused = try pushgate.cli(["send", "--app", "nope.app", "--token", Self.token, "--alert", "x"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("no app with id nope.app"), refused.stderr)
        let badToken = try pushgate.cli(["send", "--app", "com.example.pushgate", "--token", "xyz", "--alert", "x"])
        XCTAssertTrue(badToken.stderr.contains("--token is not an APNs device token"), badToken.stderr)
    }

    func testAppsCheckProvesAPNsCredentialsAndNamesTheFault() throws {
        var configuration = MockAPNsConfiguration(providerKeys: [try .fixture])
        configuration.allowedTopics = ["com.example.pushgate"]
        let apns = try MockAPNs(configuration: configuration)
        defer { apns.shutdown() }
        let pushgate = try instance(apns: apns)
        try addAPNsApp(pushgate)
        let good = try pushgate.cli(["apps", "check", "--id", "com.example.pushgate"])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(good.stdout.hasPrefix("ok: APNs accepted the credentials"), good.stdout)

        // A key Apple does not know: APNs answers 403 InvalidProviderToken.
        let unknownKey = try pushgate.cli([
            "apps", "add", "--id", "com.example.other", "--platform", "apns", "--team-id", MockFixtures.apnsTeamID,
            "--key-id", "OTHERKEY12", "--key-file", MockFixtures.apnsKeyFile, "--topic", "com.example.pushgate", "--replace",
        ])
        XCTAssertEqual(unknownKey.status, 0, unknownKey.stderr)
        let bad = try pushgate.cli(["apps", "check", "--id", "com.example.other"])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("APNs refused the credentials of com.example.other: InvalidProviderToken"), bad.stderr)
    }

    func testSendAndCheckThroughMockFCM() throws {
        let fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        defer { fcm.shutdown() }
        let pushgate = try instance(fcm: fcm)
        let account = try fcm.writeServiceAccount(to: pushgate.directory.appendingPathComponent("service-account.json"))
        let added = try pushgate.cli(["apps", "add", "--id", "com.example.android", "--platform", "fcm", "--service-account", account.path])
        XCTAssertEqual(added.status, 0, added.stderr)

        // No answer from the token endpoint says nothing of the account; only an answer refuses it.
        fcm.injectTokenEndpointFault(.status(503, reason: "backend_error"))
        let unavailable = try pushgate.cli(["apps", "check", "--id", "com.example.android"])
        XCTAssertEqual(unavailable.status, 1, unavailable.stdout)
        XCTAssertTrue(unavailable.stderr.contains("could not get an answer from Google's token endpoint"), unavailable.stderr)
        XCTAssertFalse(unavailable.stderr.contains("refused"), unavailable.stderr)
        fcm.injectTokenEndpointFault(.status(400, reason: "invalid_grant"))
        let refused = try pushgate.cli(["apps", "check", "--id", "com.example.android"])
        XCTAssertEqual(refused.status, 1, refused.stdout)
        XCTAssertTrue(refused.stderr.contains("Google refused the service account"), refused.stderr)
        fcm.clearFaults()

        let check = try pushgate.cli(["apps", "check", "--id", "com.example.android"])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("got an FCM access token for \(MockFixtures.serviceAccountEmail)"), check.stdout)

        let sent = try pushgate.cli(["send", "--app", "com.example.android", "--token", "dXk:APA91bTest-token_1", "--json", #"{"data":{"k":"v"}}"#])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        let request = try XCTUnwrap(fcm.sendRequests.last)
        XCTAssertEqual(request.path, "/v1/projects/\(MockFixtures.firebaseProjectID)/messages:send")
        let message = request.bodyJSON?.objectValue?["message"]?.objectValue
        XCTAssertEqual(message?["token"], .string("dXk:APA91bTest-token_1"))
        XCTAssertEqual(message?["data"], .object(["k": .string("v")]))
    }
}
