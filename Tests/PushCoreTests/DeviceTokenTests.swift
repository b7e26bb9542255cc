import XCTest
@testable import PushCore

final class DeviceTokenTests: XCTestCase {
    func testBase64OfTheDocumentsPushKitToken() throws {
        let token = try XCTUnwrap(DeviceToken.fromBase64("Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY="))
        XCTAssertEqual(token.bytes.count, 32)
        XCTAssertEqual(token.hex, "51d97df57d8914fd5b5b04b9811ff019e2c4d6198007608ca6bd448f4c3192b6")
        XCTAssertTrue(token.isPlausible(for: .apns))
        XCTAssertFalse(token.isPlausible(for: .fcm))
    }

    func testUnpaddedBase64OfTheDocumentsFCMToken() throws {
        // The document's token_msgs has no padding: it must decode all the same.
        let token = try XCTUnwrap(DeviceToken.fromBase64("QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J"))
        XCTAssertEqual(token.fcmText, "APA91bG9aqWvmnxnYBZWG9hxvtkgzTXSopfiufzmc6tP3Kb")
        XCTAssertTrue(token.isPlausible(for: .fcm))
        XCTAssertEqual(token.text(for: .fcm), "APA91bG9aqWvmnxnYBZWG9hxvtkgzTXSopfiufzmc6tP3Kb")
    }

    func testBase64VariantsDecodeToTheSameBytes() {
        let standard = DeviceToken.fromBase64("Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY=")
        XCTAssertEqual(DeviceToken.fromBase64("Udl99X2JFP1bWwS5gR_wGeLE1hmAB2CMpr1Ej0wxkrY"), standard)
        XCTAssertEqual(DeviceToken.fromBase64("+/8="), DeviceToken.fromBase64(" /8="))
    }

    func testMalformedBase64IsRefused() {
        XCTAssertNil(DeviceToken.fromBase64(""))
        XCTAssertNil(DeviceToken.fromBase64("abc*"))
        XCTAssertNil(DeviceToken.fromBase64("QQ==QQ"))
        XCTAssertNil(DeviceToken.fromBase64("Q"))
        XCTAssertNil(DeviceToken.fromBase64("QQ==="))
        XCTAssertNil(DeviceToken.fromBase64(String(repeating: "A", count: 4096)))
    }

    func testHexRoundTripsAndRefusesOddOrForeignDigits() throws {
        let hex = String(repeating: "a6", count: 32)
        let token = try XCTUnwrap(DeviceToken.fromHex(hex.uppercased()))
        XCTAssertEqual(token.hex, hex)
        XCTAssertNil(DeviceToken.fromHex("abc"))
        XCTAssertNil(DeviceToken.fromHex("zz"))
        XCTAssertNil(DeviceToken.fromHex(""))
    }

    func testBase64EncodeMatchesFoundation() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(($0 * 37 + 11) & 0xFF) }
            XCTAssertEqual(Base64.encode(bytes), Data(bytes).base64EncodedString())
            if length > 0 { XCTAssertEqual(Base64.decode(Base64.encode(bytes)), bytes) }
        }
    }

    /// Foundation decodes independently of `Base64`: every length of random bytes, written
    /// padded, unpadded and URL-safe, must decode to the same bytes, and to no more (the
    /// decoder writes into an array sized before it knows how many bytes there are).
    func testBase64DecodeMatchesFoundationInEverySpelling() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let padded = Data(bytes).base64EncodedString()
            XCTAssertEqual(Data(base64Encoded: padded).map(Array.init), bytes)
            let unpadded = String(padded.prefix { $0 != "=" })
            let urlSafe = String(unpadded.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
            for spelling in [padded, unpadded, urlSafe] {
                XCTAssertEqual(Base64.decode(spelling), bytes, "\(length) bytes as \(spelling)")
            }
            if length % 3 == 0 {
                // One sextet too many cannot be a byte: refused, not read past.
                XCTAssertNil(Base64.decode(unpadded + "A"), "\(length) bytes and a lone sextet")
            }
        }
    }

    func testDescriptionNeverShowsAWholeToken() throws {
        let token = try XCTUnwrap(DeviceToken.fromHex(String(repeating: "ab", count: 32)))
        XCTAssertEqual(token.description, "abababab…abab")
        let counted = DeviceToken(bytes: Array(0..<32))
        XCTAssertEqual(counted.description, "00010203…1e1f", "first four bytes, last two")
        XCTAssertEqual(DeviceToken(bytes: Array(0..<7)).description, "00010203…0506")
        XCTAssertEqual(DeviceToken(bytes: Array(0..<6)).description, "000102030405", "six bytes or fewer: whole")
        XCTAssertEqual(DeviceToken(bytes: [0xff]).description, "ff")
    }

    func testFCMText() {
        XCTAssertNotNil(DeviceToken.fromFCMText("dXk:APA91b-x_y"))
        XCTAssertNil(DeviceToken.fromFCMText("has space"))
        XCTAssertNil(DeviceToken.fromFCMText(""))
    }
}
