import PushCore
import XCTest

@testable import PushCrypto

/// A subscription's `p256dh` must be a point on P-256 for a push ever to be encrypted to it.
final class P256PublicPointTests: XCTestCase {
    /// RFC 8291's example subscriber key (appendix A), and keys OpenSSL makes.
    func testPointsOnTheCurveAreValid() throws {
        let rfc8291 = try XCTUnwrap(
            Base64URL.decode("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"))
        XCTAssertTrue(P256PublicPoint.isValid(rfc8291))
        for _ in 0..<5 {
            XCTAssertTrue(P256PublicPoint.isValid(try P256Key.publicPoint(of: try P256Key.generate())))
        }
    }

    func testAnythingElseIsNot() throws {
        let good = try P256Key.publicPoint(of: try P256Key.generate())
        var offCurve = good
        offCurve[64] ^= 0x01  // y changed by one bit: (x, y') is not on the curve
        XCTAssertFalse(P256PublicPoint.isValid(offCurve))
        let x1y1 = [0x04] + [UInt8](repeating: 0, count: 31) + [1] + [UInt8](repeating: 0, count: 31) + [1]
        XCTAssertFalse(P256PublicPoint.isValid(x1y1))
        XCTAssertFalse(P256PublicPoint.isValid([0x04] + [UInt8](repeating: 0, count: 64)), "(0, 0)")
        XCTAssertFalse(P256PublicPoint.isValid([0x04] + [UInt8](repeating: 0xFF, count: 64)), "coordinates above p")
        XCTAssertFalse(P256PublicPoint.isValid(Array(good.dropLast())), "64 bytes")
        XCTAssertFalse(P256PublicPoint.isValid(good + [0]), "66 bytes")
        var compressedTag = good
        compressedTag[0] = 0x02
        XCTAssertFalse(P256PublicPoint.isValid(compressedTag), "not uncompressed")
        XCTAssertFalse(P256PublicPoint.isValid([]))
    }
}
