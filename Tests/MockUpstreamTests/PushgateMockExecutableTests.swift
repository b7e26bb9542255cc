import Foundation
import MockUpstream
import PushCore
import PushCrypto
import XCTest

/// The `pushgate-mock` executable: announces its port, serves, prints counters on SIGTERM.
final class PushgateMockExecutableTests: XCTestCase {
    /// A running `pushgate-mock` and what it printed so far.
    private struct Running {
        let process: Process
        let output: FileHandle
        var text: String
        let port: Int

        mutating func stop() -> String {
            process.terminate()  // SIGTERM
            process.waitUntilExit()
            text += String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
            return text
        }
    }

    /// Built next to the test bundle by `swift build`/`swift test`.
    private func executable() throws -> URL {
        let candidates = [
            Bundle(for: Self.self).bundleURL.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ].map { $0.appendingPathComponent("pushgate-mock") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw XCTSkip("pushgate-mock is not built next to the tests (\(candidates.map(\.path)))")
        }
        return found
    }

    private func start(_ arguments: [String]) throws -> Running {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments + ["--port", "0", "--threads", "1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let reader = pipe.fileHandleForReading
        var text = ""
        while !text.contains("\n") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        let firstLine = text.split(separator: "\n").first.map(String.init) ?? ""
        guard firstLine.hasPrefix("listening on 127.0.0.1:"), let port = Int(firstLine.split(separator: ":").last ?? "")
        else {
            process.terminate()
            throw XCTSkip("unexpected first line: \(firstLine)")
        }
        return Running(process: process, output: reader, text: text, port: port)
    }

    func testAPNsCommandServesAndReportsOnSIGTERM() throws {
        var mock = try start(["apns"])
        let response = try Curl.post(
            "https://127.0.0.1:\(mock.port)/3/device/\(deviceToken())",
            headers: ["authorization": "bearer \(try APNsTestKey.token())", "apns-topic": "com.example.pushgate"],
            body: alertPayload)
        XCTAssertEqual(response.status, 200, response.stderr)

        let output = mock.stop()
        XCTAssertEqual(mock.process.terminationStatus, 0)
        XCTAssertTrue(output.contains("requests 1 (200: 1)"), output)
        XCTAssertTrue(output.contains("provider tokens [\"TEST123456\": 1]"), output)
    }

    func testFailuresInjectedFromTheCommandLine() throws {
        let other = String(repeating: "b2", count: 32)
        var mock = try start(["apns", "--fail-next", "1:503:ServiceUnavailable", "--fail-token", "\(other):410:Unregistered"])
        let headers = ["authorization": "bearer \(try APNsTestKey.token())", "apns-topic": "com.example.pushgate"]
        let url = "https://127.0.0.1:\(mock.port)/3/device/"
        let first = try Curl.post(url + deviceToken(), headers: headers, body: alertPayload)
        XCTAssertEqual(first.status, 503, first.body)
        XCTAssertTrue(first.body.contains("ServiceUnavailable"), first.body)
        XCTAssertEqual(try Curl.post(url + deviceToken(), headers: headers, body: alertPayload).status, 200, "only the next one")
        for _ in 0..<2 {
            let dead = try Curl.post(url + other, headers: headers, body: alertPayload)
            XCTAssertEqual(dead.status, 410, dead.body)
            XCTAssertTrue(dead.body.contains("Unregistered"), dead.body)
        }

        let output = mock.stop()
        XCTAssertTrue(output.contains("requests 4 (200: 1, 410: 2, 503: 1)"), output)
    }

    func testAMalformedFailureIsRefusedBeforeServing() throws {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["apns", "--port", "0", "--fail-next", "2:503"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertNotEqual(process.terminationStatus, 0)
        XCTAssertTrue(text.contains("--fail-next 2:503: expected COUNT:STATUS:REASON"), text)
    }

    func testFCMCommandExchangesTokensAndSends() throws {
        var mock = try start(["fcm"])
        let tokenURI = "https://127.0.0.1:\(mock.port)/token"
        let key = try RSASigningKey(pem: MockFixtures.text(MockFixtures.serviceAccountKeyFile))
        let now = Int(Date().timeIntervalSince1970)
        let assertion = try JWT.sign(
            claims: [
                "iss": .string(MockFixtures.serviceAccountEmail), "aud": .string(tokenURI),
                "scope": .string(ServiceAccount.firebaseMessagingScope), "iat": .number(Double(now)),
                "exp": .number(Double(now + 3600)),
            ], using: key)
        let grant = try Curl.post(
            tokenURI, headers: ["content-type": "application/x-www-form-urlencoded"],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)".bytes)
        let accessToken = try XCTUnwrap(grant.json?["access_token"] as? String, grant.body)
        let send = try Curl.post(
            "https://127.0.0.1:\(mock.port)/v1/projects/pushgate-test/messages:send",
            headers: ["authorization": "Bearer \(accessToken)"], body: message().bytes)
        XCTAssertEqual(send.status, 200, send.body)

        let output = mock.stop()
        XCTAssertTrue(output.contains("requests 2 (200: 2)"), output)
        XCTAssertTrue(output.contains("token requests 1, access tokens issued 1"), output)
    }

    func testWebPushCommandPrintsSubscriptionsAndDecryptedMessages() throws {
        var mock = try start(["webpush", "--subscriptions", "1", "--gone-subscriptions", "1"])
        while mock.text.split(separator: "\n").count < 3 {
            let chunk = mock.output.availableData
            if chunk.isEmpty { break }
            mock.text += String(decoding: chunk, as: UTF8.self)
        }
        func subscription(_ prefix: String) throws -> MockWebPushSubscription {
            let line = try XCTUnwrap(mock.text.split(separator: "\n").first { $0.hasPrefix(prefix + " ") }, mock.text)
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count + 1).utf8)) as? [String: Any])
            let endpoint = try XCTUnwrap(json["endpoint"] as? String)
            let keys = try XCTUnwrap(json["keys"] as? [String: String])
            return MockWebPushSubscription(
                id: String(endpoint.split(separator: "/").last ?? ""), endpoint: endpoint,
                p256dh: try XCTUnwrap(keys["p256dh"].flatMap(Base64URL.decode)),
                auth: try XCTUnwrap(keys["auth"].flatMap(Base64URL.decode)))
        }
        let key = try VAPIDKey.generate()
        var send = WebPushSend(to: try subscription("subscription"), key: key)
        send.plaintext = Array("hello from the test".utf8)
        XCTAssertEqual(try send.post().status, 201)
        XCTAssertEqual(try WebPushSend(to: try subscription("gone-subscription"), key: key).post().status, 410)

        let output = mock.stop()
        XCTAssertEqual(mock.process.terminationStatus, 0)
        XCTAssertTrue(output.contains("ttl=60 hello from the test"), output)
        XCTAssertTrue(output.contains("requests 2 (201: 1, 410: 1)"), output)
        XCTAssertTrue(output.contains("messages 1"), output)
    }
}
