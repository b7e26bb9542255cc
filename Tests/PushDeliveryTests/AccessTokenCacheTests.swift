import PushCore
import PushTesting
import Foundation
import PushCrypto
import XCTest

@testable import PushDelivery

/// One OAuth access token per service account, refreshed shortly before expiry, one refresh
/// at a time.
final class AccessTokenCacheTests: XCTestCase {
    private let clock = ManualClock()
    private let transport = FakeTransport()
    private let account = try! ServiceAccount(json: TestKeys.serviceAccountJSON())

    private func cache() -> AccessTokenCache {
        AccessTokenCache(transport: transport, clock: clock.unixClock, logger: Fixtures.logger)
    }

    private func token(_ cache: AccessTokenCache) -> Result<String, AccessTokenError>? {
        awaitResult { done in cache.accessToken(for: account, completion: done) }
    }

    func testATokenIsReusedUntilFiveMinutesBeforeItExpires() {
        transport.preload(
            "oauth.test", .response(200, body: #"{"access_token":"one","expires_in":3600}"#),
            .response(200, body: #"{"access_token":"two","expires_in":3600}"#))
        let cache = cache()
        XCTAssertEqual(token(cache), .success("one"))
        clock.advance(by: 3600 - 300 - 1)
        XCTAssertEqual(token(cache), .success("one"))
        XCTAssertEqual(transport.requests.count, 1)
        clock.advance(by: 1)
        XCTAssertEqual(token(cache), .success("two"))
        XCTAssertEqual(transport.requests.count, 2)
    }

    func testAShortLivedTokenIsUsedForHalfItsLife() {
        transport.preload(
            "oauth.test", .response(200, body: #"{"access_token":"brief","expires_in":400}"#),
            .response(200, body: #"{"access_token":"next","expires_in":3600}"#))
        let cache = cache()
        XCTAssertEqual(token(cache), .success("brief"))
        clock.advance(by: 199)
        XCTAssertEqual(token(cache), .success("brief"))
        clock.advance(by: 1)
        XCTAssertEqual(token(cache), .success("next"))
    }

    func testSixteenConcurrentCallersShareOneRefresh() {
        transport.preload("oauth.test", status: 200, body: #"{"access_token":"shared","expires_in":3600}"#, delaySeconds: 0.3)
        let cache = cache()
        let results = Locked<[Result<String, AccessTokenError>]>([])
        let account = self.account
        let done = DispatchGroup()
        for _ in 0..<16 {
            done.enter()
            DispatchQueue.global().async {
                cache.accessToken(for: account) { result in
                    results.withLock { $0.append(result) }
                    done.leave()
                }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(results.withLock { $0 }, Array(repeating: .success("shared"), count: 16))
        XCTAssertEqual(transport.requests.count, 1)
    }

    func testAFailedRefreshReachesEveryWaiterAndTheNextCallTriesAgain() {
        transport.preload(
            "oauth.test", .response(500, delaySeconds: 0.2), .response(200, body: #"{"access_token":"later","expires_in":3600}"#))
        let cache = cache()
        let account = self.account
        let results = Locked<[Result<String, AccessTokenError>]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            cache.accessToken(for: account) { result in
                results.withLock { $0.append(result) }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(
            results.withLock { $0 },
            Array(repeating: .failure(.unavailable(reason: "HTTP 500", retryAfter: nil)), count: 4))
        XCTAssertEqual(token(cache), .success("later"))
        XCTAssertEqual(transport.requests.count, 2)
    }

    func testInvalidateForgetsOnlyTheRefusedToken() {
        transport.preload(
            "oauth.test", .response(200, body: #"{"access_token":"one","expires_in":3600}"#),
            .response(200, body: #"{"access_token":"two","expires_in":3600}"#))
        let cache = cache()
        XCTAssertEqual(token(cache), .success("one"))
        cache.invalidate("stale", for: account)
        XCTAssertEqual(token(cache), .success("one"))
        cache.invalidate("one", for: account)
        XCTAssertEqual(token(cache), .success("two"))
    }
}
