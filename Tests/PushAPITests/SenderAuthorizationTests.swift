import Foundation
import PushAPI
import PushCore
import XCTest

final class SenderAuthorizationTests: XCTestCase {
    /// Keys by digest; the digest here is a plain reversal, which is all the gate needs to be
    /// told apart from the key.
    final class Keys: SenderKeyStore, @unchecked Sendable {
        var valid: [String: String] = [:]
        var failing = false
        struct Unavailable: Error {}
        func hasValidSenderKeys() throws -> Bool {
            if failing { throw Unavailable() }
            return !valid.isEmpty
        }
        func senderKeyName(digest: String) throws -> String? { valid[digest] }
        func addSenderKey(name: String, digest: String) throws { valid[digest] = name }
        func senderKeys() throws -> [SenderKey] { [] }
        func revokeSenderKey(name: String) throws -> Bool { false }
    }

    let keys = Keys()
    var gate: SenderAuthorization { SenderAuthorization(keys: keys, digest: { String($0.reversed()) }) }

    func request(_ authorization: String? = nil, from address: String = "127.0.0.1") -> Request {
        var headers: [String: String] = [:]
        if let authorization { headers["authorization"] = authorization }
        return Request(method: "POST", path: "/pnm2/send", headers: headers, remoteAddress: address)
    }

    func testWithoutKeysOnlyLoopbackMaySend() {
        XCTAssertEqual(gate.authorize(request()), .allowed(sender: "loopback"))
        XCTAssertEqual(gate.authorize(request(from: "::1")), .allowed(sender: "loopback"))
        guard case .forbidden(let reason) = gate.authorize(request("Bearer anything", from: "192.0.2.7")) else {
            return XCTFail("a remote caller must be refused while no key exists")
        }
        XCTAssertTrue(reason.contains("keys add"), reason)
    }

    func testWithKeysEveryCallerNeedsAValidOne() throws {
        try keys.addSenderKey(name: "pbx1", digest: String("pgk_secret".reversed()))
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret", from: "192.0.2.7")), .allowed(sender: "pbx1"))
        // Basic with the key as password (any user), or as user with an empty password.
        let basicPassword = "Basic " + Data("pbx:pgk_secret".utf8).base64EncodedString()
        let basicUser = "Basic " + Data("pgk_secret:".utf8).base64EncodedString()
        XCTAssertEqual(gate.authorize(request(basicPassword)), .allowed(sender: "pbx1"))
        XCTAssertEqual(gate.authorize(request(basicUser)), .allowed(sender: "pbx1"))
        // Loopback is no exemption once keys exist.
        XCTAssertEqual(gate.authorize(request()).status, 401)
        XCTAssertEqual(gate.authorize(request("Bearer pgk_wrong")), .unauthorized(reason: "the sender key is not valid"))
        XCTAssertEqual(gate.authorize(request("Basic " + Data("pbx:".utf8).base64EncodedString())).status, 401)
        XCTAssertEqual(gate.authorize(request("Token pgk_secret")).status, 401)
    }

    func testAStoreFailureIsNotAnAnswerAboutTheKey() {
        keys.failing = true
        XCTAssertEqual(gate.authorize(request()).status, 500)
    }
}
