import Foundation
import MockUpstream
import PushCrypto
import XCTest

/// Token-based provider auth against the mock APNs, driven by curl over HTTP/2 + TLS.
final class APNsTokenAuthTests: XCTestCase {
    func testValidProviderTokenIsAcceptedAndRecorded() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let token = deviceToken(7)

        let response = try apns.send(to: token, providerToken: APNsTestKey.token(), headers: ["apns-priority": "10"])

        XCTAssertEqual(response.status, 200, response.stderr + response.body)
        XCTAssertEqual(response.httpVersion, "2")
        XCTAssertEqual(response.body, "")
        let apnsID = try XCTUnwrap(response.headers["apns-id"])
        XCTAssertEqual(apnsID.count, 36, "a new UUID when the request named none")
        XCTAssertNil(response.headers["apns-unique-id"], "production sends no apns-unique-id")

        XCTAssertTrue(apns.waitForRequests(count: 1, timeout: .seconds(2)))
        let recorded = try XCTUnwrap(apns.requests.first)
        XCTAssertEqual(recorded.method, "POST")
        XCTAssertEqual(recorded.path, "/3/device/\(token)")
        XCTAssertEqual(recorded.deviceToken, token)
        XCTAssertEqual(recorded.auth, .providerToken(keyID: MockFixtures.apnsKeyID))
        XCTAssertEqual(recorded.headers["apns-topic"], "com.example.pushgate")
        XCTAssertEqual(recorded.headers["apns-priority"], "10")
        XCTAssertEqual(recorded.body, alertPayload)
        XCTAssertEqual(recorded.bodyJSON?.objectValue?["aps"]?.objectValue?["alert"], .string("hello"))
        XCTAssertEqual(recorded.outcome, .answered(status: 200, reason: nil))
        XCTAssertEqual(recorded.httpVersion, "2")
        XCTAssertEqual(apns.log.counters.byStatus, [200: 1])
        XCTAssertEqual(apns.providerTokenCounts, [MockFixtures.apnsKeyID: 1])
    }

    func testRequestApnsIDIsEchoed() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let id = "123E4567-E89B-12D3-A456-4266141740A1"
        let response = try apns.send(providerToken: APNsTestKey.token(), headers: ["apns-id": id])
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.headers["apns-id"], id)
    }

    func testMissingAuthorizationIsMissingProviderToken() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let response = try apns.send(providerToken: nil)
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.reason, "MissingProviderToken")
        XCTAssertEqual(response.body, #"{"reason":"MissingProviderToken"}"#)
        XCTAssertNotNil(response.headers["apns-id"], "errors carry apns-id too")
    }

    func testTamperedSignatureIsInvalidProviderToken() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        var jwt = try APNsTestKey.token()
        // Flip the signature's first character (keeping it base64url).
        let signatureStart = jwt.index(after: jwt.lastIndex(of: ".")!)
        jwt.replaceSubrange(signatureStart...signatureStart, with: jwt[signatureStart] == "A" ? "B" : "A")
        let response = try apns.send(providerToken: jwt)
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.reason, "InvalidProviderToken")
        XCTAssertEqual(apns.requests.first?.auth, .refused(detail: "bad ES256 signature for key TEST123456"))
    }

    func testUnknownKeyIDAndWrongTeamAreInvalidProviderToken() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        XCTAssertEqual(
            try apns.send(providerToken: APNsTestKey.token(keyID: "OTHERKEY99")).reason, "InvalidProviderToken")
        XCTAssertEqual(
            try apns.send(providerToken: APNsTestKey.token(teamID: "OTHERTEAM1")).reason, "InvalidProviderToken")
        XCTAssertEqual(try apns.send(providerToken: "not-a-jwt").reason, "InvalidProviderToken")
        let basic = try apns.send(headers: ["authorization": "Basic dXNlcjpwYXNz"])
        XCTAssertEqual(basic.status, 403)
        XCTAssertEqual(basic.reason, "InvalidProviderToken")
    }

    func testTokenOlderThanAnHourIsExpiredProviderToken() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let response = try apns.send(providerToken: APNsTestKey.token(age: 3601))
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.reason, "ExpiredProviderToken")
        XCTAssertEqual(try apns.send(providerToken: APNsTestKey.token(age: 3500)).status, 200)
    }

    func testNewTokenSoonerThanTheUpdateIntervalIsTooManyProviderTokenUpdates() throws {
        let apns = try startAPNs { $0.providerTokenUpdateInterval = .seconds(20 * 60) }
        defer { apns.shutdown() }
        let first = try APNsTestKey.token(age: 10)
        let second = try APNsTestKey.token(age: 0)

        XCTAssertEqual(try apns.send(providerToken: first).status, 200)
        XCTAssertEqual(try apns.send(providerToken: first).status, 200, "the same token is reused freely")
        let refused = try apns.send(providerToken: second)
        XCTAssertEqual(refused.status, 429)
        XCTAssertEqual(refused.reason, "TooManyProviderTokenUpdates")
        XCTAssertEqual(try apns.send(providerToken: first).status, 200, "the current token keeps working")
        XCTAssertEqual(apns.providerTokenCounts, [MockFixtures.apnsKeyID: 1])
        XCTAssertEqual(apns.providerTokenUpdatesRefused, 1)
    }

    func testDistinctTokensAreCountedPerKey() throws {
        let apns = try startAPNs()  // update interval zero
        defer { apns.shutdown() }
        for age in [20, 10, 0] {
            XCTAssertEqual(try apns.send(providerToken: APNsTestKey.token(age: age)).status, 200)
        }
        XCTAssertEqual(apns.providerTokenCounts, [MockFixtures.apnsKeyID: 3])
    }

    func testOneConnectionCarriesManyStreams() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let jwt = try APNsTestKey.token()
        // One curl run, several URLs sharing the options: curl reuses its HTTP/2 connection.
        var arguments = [
            "-sS", "--http2", "--cacert", MockFixtures.caFile, "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null",
            "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code}\n", "-H", "authorization: bearer \(jwt)",
            "-H", "apns-topic: com.example.pushgate", "--data-binary", String(decoding: alertPayload, as: UTF8.self),
        ]
        arguments += (1...5).map { apns.url(token: deviceToken($0)) }
        let (exitCode, stdout, stderr) = try Curl.run(arguments)
        XCTAssertEqual(exitCode, 0, stderr)
        XCTAssertEqual(stdout.split(separator: "\n"), Array(repeating: "200", count: 5))
        XCTAssertTrue(apns.waitForRequests(count: 5))
        XCTAssertEqual(Set(apns.requests.map(\.connectionID)).count, 1)
        XCTAssertEqual(apns.connectionCount, 1)
    }

    func testRecordingCanBeTurnedOffWhileCountersRemain() throws {
        let apns = try startAPNs { $0.recordRequests = false }
        defer { apns.shutdown() }
        XCTAssertEqual(try apns.send(providerToken: APNsTestKey.token()).status, 200)
        XCTAssertEqual(apns.log.count, 1)
        XCTAssertTrue(apns.requests.isEmpty)

        let bodiless = try startAPNs { $0.recordBodies = false }
        defer { bodiless.shutdown() }
        XCTAssertEqual(try bodiless.send(providerToken: APNsTestKey.token()).status, 200)
        XCTAssertEqual(bodiless.requests.count, 1)
        XCTAssertNil(bodiless.requests.first?.body)
    }

    func testResetForgetsLogAndTokenHistory() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        XCTAssertEqual(try apns.send(providerToken: APNsTestKey.token()).status, 200)
        apns.reset()
        XCTAssertEqual(apns.log.count, 0)
        XCTAssertTrue(apns.providerTokenCounts.isEmpty)
        XCTAssertFalse(apns.waitForRequests(count: 1, timeout: .milliseconds(20)))
    }
}
