import PushCrypto
import XCTest

final class SenderKeyMaterialTests: XCTestCase {
    func testSHA256KnownAnswers() {
        // FIPS 180-2 examples.
        XCTAssertEqual(SHA256.hexDigest(of: ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hexDigest(of: "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    func testKeysAreFreshAndWellFormed() throws {
        let first = try SenderKeyMaterial.generate()
        let second = try SenderKeyMaterial.generate()
        XCTAssertNotEqual(first, second)
        XCTAssertTrue(first.hasPrefix("pgk_"))
        XCTAssertEqual(first.count, 4 + 43)
        XCTAssertEqual(Base64URL.decode(first.dropFirst(4))?.count, 32)
        XCTAssertEqual(SenderKeyMaterial.digest(of: first).count, 64)
        XCTAssertNotEqual(SenderKeyMaterial.digest(of: first), SenderKeyMaterial.digest(of: second))
    }
}
