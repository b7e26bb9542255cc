import Foundation
import PushCore
import PushCrypto
import XCTest

@testable import PushDelivery

/// One provider JWT per key, renewed at 50 minutes, never more often than every 20.
final class ProviderTokenCacheTests: XCTestCase {
    private let clock = ManualClock()
    private let key = try! ProviderKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: TestKeys.apnsKey)

    private func issuedAt(_ token: String) throws -> Double? {
        try JWT.decode(token).claims["iat"]?.numberValue
    }

    func testATokenIsReusedUntilItIsFiftyMinutesOld() throws {
        let cache = ProviderTokenCache(clock: clock.unixClock)
        let first = try cache.token(for: key)
        XCTAssertTrue(try JWT.verify(first, publicKeyPEM: TestKeys.apnsPublicKey))
        clock.advance(by: 49 * 60 + 59)
        XCTAssertEqual(try cache.token(for: key), first)
        clock.advance(by: 1)
        let second = try cache.token(for: key)
        XCTAssertNotEqual(second, first)
        XCTAssertEqual(try issuedAt(second), Double(clock.now))
        XCTAssertEqual(try cache.token(for: key), second)
    }

    func testRoutineRenewalsNeverComeCloserThanTwentyMinutes() throws {
        let cache = ProviderTokenCache(clock: clock.unixClock, policy: .init(renewAfterSeconds: 5 * 60))
        let first = try cache.token(for: key)
        clock.advance(by: 19 * 60)
        XCTAssertEqual(try cache.token(for: key), first)
        clock.advance(by: 60)
        XCTAssertNotEqual(try cache.token(for: key), first)
    }

    func testForcedRenewalRespectsItsFloorAndHappensOncePerRefusedToken() throws {
        let cache = ProviderTokenCache(clock: clock.unixClock)
        let first = try cache.token(for: key)
        clock.advance(by: 30)
        XCTAssertNil(try cache.renewedToken(for: key, replacing: first), "younger than the floor")
        clock.advance(by: 30)
        let renewed = try XCTUnwrap(try cache.renewedToken(for: key, replacing: first))
        XCTAssertNotEqual(renewed, first)
        // Every other request that carried `first` gets the same replacement, not another one.
        clock.advance(by: 120)
        XCTAssertEqual(try cache.renewedToken(for: key, replacing: first), renewed)
        XCTAssertEqual(try cache.token(for: key), renewed)
    }

    func testEachKeyHasItsOwnTokenAndAReplacedKeyIsUsedAtOnce() throws {
        let cache = ProviderTokenCache(clock: clock.unixClock)
        let other = try ProviderKey(teamID: "TEAM123456", keyID: "OTHERKEY01", pem: TestKeys.otherAPNsKey)
        let first = try cache.token(for: key)
        let second = try cache.token(for: other)
        XCTAssertNotEqual(first, second)
        XCTAssertEqual(try JWT.decode(second).header["kid"], .string("OTHERKEY01"))
        // The operator re-registers KEY1234567 with another .p8: the old token is not used again.
        let replaced = try ProviderKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: TestKeys.otherAPNsKey)
        let third = try cache.token(for: replaced)
        XCTAssertNotEqual(third, first)
        XCTAssertFalse(try JWT.verify(third, publicKeyPEM: TestKeys.apnsPublicKey))
    }

    func testOneTokenPerKeyAcrossThreads() throws {
        let cache = ProviderTokenCache(clock: clock.unixClock)
        let tokens = Locked<Set<String>>([])
        let key = self.key
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<100 {
                let token = try! cache.token(for: key)
                tokens.withLock { _ = $0.insert(token) }
            }
        }
        XCTAssertEqual(tokens.withLock { $0.count }, 1)
    }
}

/// Tokens kept across restarts: a new process goes on with its predecessor's token.
final class ProviderTokenArchiveTests: XCTestCase {
    private final class Archive: ProviderTokenArchive, @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [String: ArchivedProviderToken] = [:]
        private(set) var saves = 0
        func archivedProviderToken(teamID: String, keyID: String) throws -> ArchivedProviderToken? {
            lock.withLock { kept[teamID + "/" + keyID] }
        }
        func archiveProviderToken(_ token: ArchivedProviderToken) throws {
            lock.withLock {
                kept[token.teamID + "/" + token.keyID] = token
                saves += 1
            }
        }
        func replaceProviderToken(_ token: ArchivedProviderToken, expecting expected: ArchivedProviderToken?) throws
            -> ArchivedProviderToken
        {
            lock.withLock {
                let name = token.teamID + "/" + token.keyID
                guard let current = kept[name] else {
                    kept[name] = token
                    saves += 1
                    return token
                }
                guard current.token == expected?.token else { return current }
                kept[name] = token
                saves += 1
                return token
            }
        }
    }

    private let clock = ManualClock()
    private let key = try! ProviderKey(teamID: "TEAM123456", keyID: "KEY1234567", pem: TestKeys.apnsKey)

    func testARestartedProcessReusesTheKeptTokenUntilItIsDue() throws {
        let archive = Archive()
        let first = try ProviderTokenCache(clock: clock.unixClock, archive: archive).token(for: key)
        XCTAssertEqual(archive.saves, 1)

        clock.advance(by: 30 * 60)
        let restarted = ProviderTokenCache(clock: clock.unixClock, archive: archive)
        XCTAssertEqual(try restarted.token(for: key), first, "no new token: Apple would count it as a renewal")
        XCTAssertEqual(archive.saves, 1)

        clock.advance(by: 20 * 60)
        let renewed = try ProviderTokenCache(clock: clock.unixClock, archive: archive).token(for: key)
        XCTAssertNotEqual(renewed, first, "fifty minutes old: renewed, as in one process")
        XCTAssertEqual(try archive.archivedProviderToken(teamID: key.teamID, keyID: key.keyID)?.token, renewed)
    }

    func testATokenOfAReplacedKeyIsNotReused() throws {
        let archive = Archive()
        let first = try ProviderTokenCache(clock: clock.unixClock, archive: archive).token(for: key)
        let replaced = try ProviderKey(teamID: key.teamID, keyID: key.keyID, pem: TestKeys.otherAPNsKey)
        let second = try ProviderTokenCache(clock: clock.unixClock, archive: archive).token(for: replaced)
        XCTAssertNotEqual(second, first)
        XCTAssertTrue(try JWT.verify(second, publicKeyPEM: try APNsSigningKey(pem: TestKeys.otherAPNsKey).publicKeyPEM()))
    }

    func testAForcedRenewalIsKeptToo() throws {
        let archive = Archive()
        let cache = ProviderTokenCache(clock: clock.unixClock, archive: archive)
        let first = try cache.token(for: key)
        clock.advance(by: 5 * 60)
        let renewed = try XCTUnwrap(try cache.renewedToken(for: key, replacing: first))
        XCTAssertEqual(try archive.archivedProviderToken(teamID: key.teamID, keyID: key.keyID)?.token, renewed)
    }
}
