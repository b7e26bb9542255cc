import Foundation
import PushCore
import XCTest

@testable import PushCrypto

final class PasswordHashTests: XCTestCase {
    /// Python's hashlib.pbkdf2_hmac, a second implementation of PBKDF2-HMAC-SHA256.
    func pythonPBKDF2(password: String, salt: [UInt8], iterations: Int) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = """
            import hashlib, sys
            print(hashlib.pbkdf2_hmac('sha256', sys.argv[1].encode('utf-8'), bytes.fromhex(sys.argv[2]), int(sys.argv[3])).hex())
            """
        process.arguments = ["python3", "-c", script, password, DeviceToken(bytes: salt).hex, String(iterations)]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 is required for this check")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testDerivationMatchesPython() throws {
        for (password, iterations) in [("password", 1), ("pässwörd with spaces", 1000), ("", 10)] {
            let salt = try SecureRandom.bytes(16)
            let ours = try PasswordHash.derive(password: password, salt: salt, iterations: iterations, length: 32)
            XCTAssertEqual(
                DeviceToken(bytes: ours).hex, try pythonPBKDF2(password: password, salt: salt, iterations: iterations))
        }
    }

    func testAStoredHashIsSelfDescribingAndVerifiesByPython() throws {
        let stored = try PasswordHash.make(password: "secret", iterations: 2000)
        let parts = stored.split(separator: "$").map(String.init)
        XCTAssertEqual(parts.count, 4)
        XCTAssertEqual(parts[0], "pbkdf2-sha256")
        XCTAssertEqual(parts[1], "2000")
        let salt = try XCTUnwrap(Base64.decode(parts[2]))
        XCTAssertEqual(salt.count, 16)
        let hash = try XCTUnwrap(Base64.decode(parts[3]))
        XCTAssertEqual(DeviceToken(bytes: hash).hex, try pythonPBKDF2(password: "secret", salt: salt, iterations: 2000))
        XCTAssertNotEqual(stored, try PasswordHash.make(password: "secret", iterations: 2000), "a fresh salt each time")
    }

    func testVerification() throws {
        let stored = try PasswordHash.make(password: "secret", iterations: 1000)
        XCTAssertTrue(PasswordHash.verify(password: "secret", against: stored))
        XCTAssertFalse(PasswordHash.verify(password: "Secret", against: stored))
        XCTAssertFalse(PasswordHash.verify(password: "", against: stored))
        for broken in [
            "", "secret", "md5$1$AA==$AA==", "pbkdf2-sha256$0$AA==$AA==", "pbkdf2-sha256$x$AA==$AA==",
            "pbkdf2-sha256$99999999999$AA==$AA==", stored + "$", "pbkdf2-sha256$1000$!!$AA==",
        ] {
            XCTAssertFalse(PasswordHash.verify(password: "secret", against: broken), broken)
        }
        XCTAssertEqual(PasswordHash.defaultIterations, 600_000)
    }

    func testTheCacheRemembersSuccessesOnly() throws {
        final class Counter: @unchecked Sendable {
            var calls = 0
        }
        let counter = Counter()
        let cache = VerifiedPasswordCache(lifetime: .milliseconds(200)) { password, stored in
            counter.calls += 1
            return password == stored
        }
        XCTAssertTrue(cache.verify(user: "a", password: "p", storedHash: "p"))
        XCTAssertTrue(cache.verify(user: "a", password: "p", storedHash: "p"))
        XCTAssertEqual(counter.calls, 1)
        XCTAssertFalse(cache.verify(user: "a", password: "q", storedHash: "p"))
        XCTAssertFalse(cache.verify(user: "a", password: "q", storedHash: "p"))
        XCTAssertEqual(counter.calls, 3, "failures are checked every time")
        XCTAssertFalse(cache.verify(user: "a", password: "p", storedHash: "changed"))
        XCTAssertEqual(counter.calls, 4, "a new stored hash is a new key")
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertTrue(cache.verify(user: "a", password: "p", storedHash: "p"))
        XCTAssertEqual(counter.calls, 5, "expired")
    }
}
