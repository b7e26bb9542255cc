import Foundation
import PushCore
import PushCrypto
import XCTest

@testable import PushDelivery

/// One VAPID token per key, subject and push service origin, renewed before it expires.
final class VAPIDTokenCacheTests: XCTestCase {
    func testReusedPerAudienceUntilNearExpiry() throws {
        let clock = ManualClock()
        let cache = VAPIDTokenCache(clock: clock.unixClock)
        let key = try VAPIDKey.generate()
        let first = try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.one")
        XCTAssertEqual(
            try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.one"), first)
        let other = try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.two")
        XCTAssertNotEqual(other, first)

        let claims = try XCTUnwrap(VAPIDAuthorization(header: first)?.verifiedClaims()).claims
        XCTAssertEqual(claims["aud"], .string("https://push.one"))
        XCTAssertEqual(claims["sub"], .string("mailto:a@example.com"))
        XCTAssertEqual(claims["exp"], .number(Double(clock.now + VAPIDTokenCache.lifetime)))
        XCTAssertLessThanOrEqual(VAPIDTokenCache.lifetime, VAPIDToken.maximumLifetime)

        clock.advance(by: VAPIDTokenCache.lifetime - VAPIDTokenCache.renewalMargin - 1)
        XCTAssertEqual(
            try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.one"), first)
        clock.advance(by: 1)
        let renewed = try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.one")
        XCTAssertNotEqual(renewed, first)
        XCTAssertEqual(
            try XCTUnwrap(VAPIDAuthorization(header: renewed)?.verifiedClaims()).claims["exp"],
            .number(Double(clock.now + VAPIDTokenCache.lifetime)))
    }

    func testKeysSubjectsAndInvalidationEachGetTheirOwnToken() throws {
        let cache = VAPIDTokenCache(clock: ManualClock().unixClock)
        let key = try VAPIDKey.generate()
        let first = try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.one")
        XCTAssertNotEqual(
            try cache.authorization(key: VAPIDKey.generate(), subject: "mailto:a@example.com", audience: "https://push.one"),
            first)
        XCTAssertNotEqual(
            try cache.authorization(key: key, subject: "mailto:b@example.com", audience: "https://push.one"), first)
        cache.invalidate(key: key, subject: "mailto:a@example.com", audience: "https://push.one")
        XCTAssertNotEqual(
            try cache.authorization(key: key, subject: "mailto:a@example.com", audience: "https://push.one"), first)
    }
}
