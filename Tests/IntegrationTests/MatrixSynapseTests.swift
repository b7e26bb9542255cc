import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// A real homeserver as the caller: Synapse (from PyPI) on loopback with SQLite, a pusher of
/// one user set at pushgate, and a message from another user, which reaches the mock APNs as
/// Element iOS would receive it. Slow (Synapse starts in a few seconds) and it needs Synapse
/// installed, so it runs only when `MATRIX_SYNAPSE_PYTHON` names the Python of a virtualenv
/// with `matrix-synapse` (`python3 -m venv /tmp/syn && /tmp/syn/bin/pip install matrix-synapse`);
/// otherwise it is skipped.
final class MatrixSynapseTests: MockUpstreamsTestCase {
    static let app = "im.example.app.ios.prod"
    static let tokenHex = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0"

    private var synapse: Process?

    override func tearDown() {
        if let synapse, synapse.isRunning {
            synapse.terminate()
            synapse.waitUntilExit()
        }
        super.tearDown()
    }

    func testAMessageSentOnSynapseReachesTheDeviceThroughPushgate() throws {
        guard let python = ProcessInfo.processInfo.environment["MATRIX_SYNAPSE_PYTHON"], !python.isEmpty else {
            throw XCTSkip("MATRIX_SYNAPSE_PYTHON is not set: no Synapse to call pushgate")
        }
        try startPushgate()
        try pushgate.addMockAPNsApp(id: Self.app, ["--topic", "im.example.app"])
        let homeserver = try startSynapse(python: python)

        let alice = try homeserver.register("alice")
        let bob = try homeserver.register("bob")
        // Bob's phone sets its pusher at pushgate, as Element iOS does (full format).
        let pusher = try homeserver.call(
            "POST", "/_matrix/client/v3/pushers/set", token: bob,
            #"{"kind": "http", "app_id": "\#(Self.app)", "pushkey": "\#(DeviceToken.fromHex(Self.tokenHex)!.base64)", "app_display_name": "Example", "device_display_name": "iPhone", "lang": "en", "data": {"url": "http://127.0.0.1:\#(pushgate.port)/_matrix/push/v1/notify", "default_payload": {"aps": {"mutable-content": 1}}}}"#)
        XCTAssertEqual(pusher.status, 200, pusher.text)

        let room = try homeserver.call(
            "POST", "/_matrix/client/v3/createRoom", token: alice,
            #"{"preset": "private_chat", "name": "Lunch", "invite": ["@bob:test.local"]}"#)
        let roomID = try XCTUnwrap(try JSONValue.parse(room.body).objectValue?["room_id"]?.stringValue, room.text)
        XCTAssertEqual(try homeserver.call("POST", "/_matrix/client/v3/join/\(roomID)", token: bob, "{}").status, 200)
        let sent = try homeserver.call(
            "PUT", "/_matrix/client/v3/rooms/\(roomID)/send/m.room.message/txn1", token: alice,
            #"{"msgtype": "m.text", "body": "Pizza?"}"#)
        XCTAssertEqual(sent.status, 200, sent.text)
        let eventID = try XCTUnwrap(try JSONValue.parse(sent.body).objectValue?["event_id"]?.stringValue)

        // The invite alerts first, then the message (Synapse pushes one at a time).
        let deadline = Date().addingTimeInterval(30)
        var pushed: RecordedRequest?
        while Date() < deadline, pushed == nil {
            pushed = apns.requests.first { $0.bodyJSON?.objectValue?["event_id"] == .string(eventID) }
            if pushed == nil { usleep(100_000) }
        }
        let push = try XCTUnwrap(pushed, "no push of the message reached the mock APNs: \(apns.requests.map(\.bodyJSON))")
        XCTAssertEqual(push.path, "/3/device/\(Self.tokenHex)")
        XCTAssertEqual(push.headers["apns-topic"], "im.example.app")
        let aps = try XCTUnwrap(push.bodyJSON?.objectValue?["aps"]?.objectValue)
        XCTAssertEqual(aps["mutable-content"], .number(1))
        XCTAssertEqual(aps["badge"], .number(1))
        XCTAssertEqual(
            aps["alert"],
            .object([
                "loc-key": .string("MSG_FROM_USER_IN_ROOM_WITH_CONTENT"),
                "loc-args": .array([.string("alice"), .string("Lunch"), .string("Pizza?")]),
            ]))
        XCTAssertEqual(push.bodyJSON?.objectValue?["room_id"], .string(roomID))
        XCTAssertTrue(
            apns.requests.contains { $0.bodyJSON?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["loc-key"] == .string("USER_INVITE_TO_NAMED_ROOM") },
            "the invite was pushed too")
    }

    /// A homeserver on a free loopback port: its client API and the registration it allows.
    struct Homeserver {
        let client: HTTPClient

        func call(_ method: String, _ path: String, token: String? = nil, _ body: String) throws -> HTTPClient.Response {
            var headers = [("Content-Type", "application/json")]
            if let token { headers.append(("Authorization", "Bearer \(token)")) }
            return try client.request(method, path, headers: headers, body: Array(body.utf8))
        }

        /// Registers `user` (open registration, the dummy flow) and returns its access token.
        func register(_ user: String) throws -> String {
            let response = try call(
                "POST", "/_matrix/client/v3/register",
                #"{"username": "\#(user)", "password": "correct horse battery", "auth": {"type": "m.login.dummy"}}"#)
            guard let token = try JSONValue.parse(response.body).objectValue?["access_token"]?.stringValue else {
                throw PushgateInstance.Failure("registering \(user) failed: \(response.status) \(response.text)")
            }
            return token
        }
    }

    private func startSynapse(python: String) throws -> Homeserver {
        let directory = pushgate.directory.appendingPathComponent("synapse")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let config = directory.appendingPathComponent("homeserver.yaml")
        let path = directory.path
        // Loopback is in Synapse's default ip_range_blacklist: pushgate there must be allowed.
        try """
            server_name: "test.local"
            pid_file: \(path)/homeserver.pid
            listeners:
              - port: \(port)
                bind_addresses: ['127.0.0.1']
                type: http
                tls: false
                x_forwarded: false
                resources:
                  - names: [client]
                    compress: false
            database:
              name: sqlite3
              args:
                database: \(path)/homeserver.db
            media_store_path: \(path)/media_store
            signing_key_path: \(path)/test.local.signing.key
            macaroon_secret_key: "pushgate-test-macaroon"
            form_secret: "pushgate-test-form"
            report_stats: false
            trusted_key_servers: []
            suppress_key_server_warning: true
            enable_registration: true
            enable_registration_without_verification: true
            ip_range_whitelist: ['127.0.0.1']
            rc_message: {per_second: 1000, burst_count: 1000}
            rc_registration: {per_second: 1000, burst_count: 1000}
            rc_joins: {local: {per_second: 1000, burst_count: 1000}, remote: {per_second: 1000, burst_count: 1000}}
            rc_invites: {per_room: {per_second: 1000, burst_count: 1000}, per_user: {per_second: 1000, burst_count: 1000}}

            """.write(to: config, atomically: true, encoding: .utf8)
        let keys = try PushgateInstance.Output.of(
            python, ["-m", "synapse.app.homeserver", "-c", config.path, "--generate-keys"],
            environment: ProcessInfo.processInfo.environment)
        guard keys.status == 0 else { throw PushgateInstance.Failure("synapse --generate-keys: \(keys.stderr)") }
        let log = directory.appendingPathComponent("synapse.log")
        let process = try PushgateInstance.launch(
            python, ["-m", "synapse.app.homeserver", "-c", config.path],
            environment: ProcessInfo.processInfo.environment, log: log)
        synapse = process
        let homeserver = Homeserver(client: HTTPClient(port: port, timeoutSeconds: 10))
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? homeserver.client.get("/_matrix/client/versions").status) == 200 { return homeserver }
            guard process.isRunning else { break }
            usleep(200_000)
        }
        throw PushgateInstance.Failure(
            "Synapse did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
    }
}
