import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// pnm2 checks the sender key before a send takes a slot of the upstream lane, through the
/// real nginx and `pushgate serve`: with the lane full (its one parked send held by a slow
/// mock FCM, a keyed send waiting in its queue of one), POSTs without a valid key get pnm2's
/// own 401 (or 403) where they were read, not the lane's busy answer, and the keyed sends
/// still go through. Runs on SQLite and on PostgreSQL (the key is read from the store).
///
/// No assertion measures a duration: "answered while the lane is full" is checked as
/// "answered before the parked send returned", which a queued request cannot fake.
final class SendKeyBeforeLaneIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let app = "valid.appid"
    static let slowSeconds = 6

    var fcm: MockFCM!
    var pushgate: PushgateInstance!

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        fcm?.shutdown()
        fcm = nil
        super.tearDown()
    }

    private static func send(token: String) -> String {
        #"{"DeviceToken": "\#(token)", "AppId": "\#(app)", "verb": "NotifyGenericTextMessage", "Message": "hello"}"#
    }

    func testSendsWithoutAValidKeyAreRefusedWithoutWaitingForTheFullLane() throws {
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        var environment = PushgateInstance.upstreams(apns: nil, fcm: fcm)
        environment["PUSHGATE_THREADS"] = "4"
        environment["PUSHGATE_UPSTREAM_LANE_THREADS"] = "1"
        environment["PUSHGATE_UPSTREAM_LANE_QUEUE"] = "1"
        environment["PUSHGATE_UPSTREAM_LANE_WAIT_MS"] = "50000"
        environment["PUSHGATE_UPSTREAM_LANE_PARKED"] = "1"
        environment["PUSHGATE_LOG_LEVEL"] = "debug"
        pushgate = try PushgateInstance(environment: environment)
        try pushgate.start()
        try pushgate.addMockFCMApp(id: Self.app, fcm: fcm)
        let added = try pushgate.cli(["keys", "add", "pbx"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let scrape = try pushgate.cli(["keys", "add", "prometheus", "--operator"])
        XCTAssertEqual(scrape.status, 0, scrape.stderr)
        let operatorKey = scrape.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        // The lane's one parked send, held by the mock, and a second keyed send in its queue.
        fcm.inject(.delay(.seconds(Self.slowSeconds)), forToken: "SlowToken1")
        let sends = BackgroundSends()
        let client = HTTPClient(port: pushgate.port, timeoutSeconds: 120)
        let keyed = ["Authorization": "Bearer \(key)"]
        sends.post(client, "/pnm2/send", token: "SlowToken1", body: Self.send(token: "SlowToken1"), headers: keyed)
        try pushgate.waitUntil("the slow send reached the mock") { fcm.sendRequests.count == 1 }
        sends.post(client, "/pnm2/send", token: "QueuedToken1", body: Self.send(token: "QueuedToken1"), headers: keyed)
        try pushgate.waitForServeLog(containing: "waits for a thread of the upstream lane behind 0 others")

        // A flood without a valid key: each is refused by pnm2, none waits for the lane.
        let callers: [(what: String, headers: [String: String], status: Int)] = [
            ("no key", [:], 401), ("no key", [:], 401), ("no key", [:], 401),
            ("a made-up key", ["Authorization": "Bearer pgk_made_up"], 401),
            ("Basic with a wrong key", ["Authorization": "Basic " + Data("pbx:wrong".utf8).base64EncodedString()], 401),
            ("an operator key", ["Authorization": "Bearer \(operatorKey)"], 403),
        ]
        for caller in callers {
            let refused = try pushgate.client.post(
                "/pnm2/send", contentType: "application/json", body: Self.send(token: "Flood1"), headers: caller.headers)
            XCTAssertEqual(refused.status, caller.status, "\(caller.what): \(refused.text)")
            XCTAssertEqual(refused.header("Content-Type"), "application/json", caller.what)
            let reply = (try? JSONValue.parse(refused.body))?.objectValue ?? [:]
            XCTAssertEqual(reply["code"], .number(Double(caller.status)), "pnm2's shape: \(refused.text)")
            if caller.status == 401 {
                XCTAssertEqual(refused.header("WWW-Authenticate"), #"Bearer realm="pushgate", Basic realm="pushgate""#)
            }
        }
        let multisend = try pushgate.client.post(
            "/pnm2/multisend", contentType: "application/json", body: "[" + Self.send(token: "Flood2") + "]")
        XCTAssertEqual(multisend.status, 401, multisend.text)
        XCTAssertEqual(sends.returned, 0, "all refused while the parked send still waited on the mock")
        XCTAssertEqual(fcm.sendRequests.count, 1, "nothing of the flood reached the upstream")

        // The keyed sends go through: the parked one, then the one that waited in the queue.
        let answers = sends.all()
        for token in ["SlowToken1", "QueuedToken1"] {
            guard case .success(let response)? = answers[token] else {
                XCTFail("\(token): \(String(describing: answers[token]))")
                continue
            }
            XCTAssertEqual(response.text, #"{"code": 200, "response": "Your message was sent.", "status": 200}"#, token)
        }
        XCTAssertEqual(Set(fcm.sendRequests.compactMap { $0.deviceToken }), ["SlowToken1", "QueuedToken1"])
        // Each request's line is written just after its answer is sent.
        try pushgate.waitUntil("the five 401s' lines are in serve's log") {
            pushgate.serveLog.components(separatedBy: "POST /pnm2/send 401").count - 1 >= 5
        }
        let log = pushgate.serveLog
        XCTAssertFalse(log.contains("the upstream lane had no room"), "no request was answered busy:\n\(log)")
        XCTAssertEqual(log.components(separatedBy: "POST /pnm2/send 401").count - 1, 5, log)
    }
}
