import Foundation
import MockUpstream
import XCTest

/// Scripted per-token answers: dead, bad, other-environment and other-topic tokens.
final class APNsTokenOutcomeTests: XCTestCase {
    func testUnregisteredCarriesTimestamp() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let token = deviceToken(3)
        apns.setOutcome(.unregistered(since: 1_700_000_000_123), forToken: token)

        let response = try apns.send(to: token, providerToken: APNsTestKey.token())
        XCTAssertEqual(response.status, 410)
        XCTAssertEqual(response.reason, "Unregistered")
        XCTAssertEqual(response.json?["timestamp"] as? Int, 1_700_000_000_123)
        XCTAssertEqual(response.body, #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        XCTAssertEqual(
            try apns.send(to: deviceToken(4), providerToken: APNsTestKey.token()).status, 200, "other tokens live")

        apns.setOutcome(nil, forToken: token)
        XCTAssertEqual(try apns.send(to: token, providerToken: APNsTestKey.token()).status, 200, "live again")
    }

    func testExpiredAndBadTokens() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        apns.setOutcome(.expired, forToken: deviceToken(5))
        apns.setOutcome(.bad, forToken: deviceToken(6))
        let expired = try apns.send(to: deviceToken(5), providerToken: APNsTestKey.token())
        XCTAssertEqual(expired.status, 410)
        XCTAssertEqual(expired.reason, "ExpiredToken")
        let bad = try apns.send(to: deviceToken(6), providerToken: APNsTestKey.token())
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(bad.reason, "BadDeviceToken")
    }

    func testTokenOfTheOtherEnvironmentIsBadDeviceToken() throws {
        let production = try startAPNs()
        defer { production.shutdown() }
        let sandbox = try startAPNs { $0.environment = .sandbox }
        defer { sandbox.shutdown() }
        let token = deviceToken(8)
        production.setOutcome(.onlyIn(.sandbox), forToken: token)
        sandbox.setOutcome(.onlyIn(.sandbox), forToken: token)

        let refused = try production.send(to: token, providerToken: APNsTestKey.token())
        XCTAssertEqual(refused.status, 400)
        XCTAssertEqual(refused.reason, "BadDeviceToken")
        let accepted = try sandbox.send(to: token, providerToken: APNsTestKey.token())
        XCTAssertEqual(accepted.status, 200)
        XCTAssertNotNil(accepted.headers["apns-unique-id"], "the development environment adds apns-unique-id")
    }

    func testTokenOfAnotherTopicIsDeviceTokenNotForTopic() throws {
        let apns = try startAPNs()
        defer { apns.shutdown() }
        let token = deviceToken(9)
        apns.setOutcome(.onlyForTopic("com.example.other"), forToken: token)
        let response = try apns.send(to: token, providerToken: APNsTestKey.token())
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.reason, "DeviceTokenNotForTopic")
        XCTAssertEqual(
            try apns.send(to: token, providerToken: APNsTestKey.token(), headers: ["apns-topic": "com.example.other"])
                .status, 200)
    }
}
