import Foundation
import PushAPI
import PushCore
import PushTesting
import XCTest

final class SenderAuthorizationTests: XCTestCase {
    let keys = InMemorySenderKeys()
    /// The digest here is a plain reversal, which is all the gate needs to tell it from the key.
    var gate: SenderAuthorization { SenderAuthorization(keys: keys, digest: { String($0.reversed()) }) }

    func request(_ authorization: String? = nil, from address: String = "127.0.0.1") -> Request {
        var headers: [String: String] = [:]
        if let authorization { headers["authorization"] = authorization }
        return Request(method: "POST", path: "/pnm2/send", headers: headers, remoteAddress: address)
    }

    func testWithoutKeysOnlyLoopbackMaySend() {
        XCTAssertEqual(gate.authorize(request()), .allowed(.loopback))
        XCTAssertEqual(gate.authorize(request(from: "::1")), .allowed(.loopback))
        guard case .forbidden(let reason) = gate.authorize(request("Bearer anything", from: "192.0.2.7")) else {
            return XCTFail("a remote caller must be refused while no key exists")
        }
        XCTAssertTrue(reason.contains("keys add"), reason)
    }

    func testWithKeysEveryCallerNeedsAValidOne() throws {
        try keys.addSenderKey(name: "pbx1", digest: String("pgk_secret".reversed()))
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret", from: "192.0.2.7")), .allowed(Sender(name: "pbx1", scope: .unrestricted)))
        // Basic with the key as password (any user), or as user with an empty password.
        let basicPassword = "Basic " + Data("pbx:pgk_secret".utf8).base64EncodedString()
        let basicUser = "Basic " + Data("pgk_secret:".utf8).base64EncodedString()
        XCTAssertEqual(gate.authorize(request(basicPassword)), .allowed(Sender(name: "pbx1", scope: .unrestricted)))
        XCTAssertEqual(gate.authorize(request(basicUser)), .allowed(Sender(name: "pbx1", scope: .unrestricted)))
        // Loopback is no exemption once keys exist.
        XCTAssertEqual(gate.authorize(request()).status, 401)
        XCTAssertEqual(gate.authorize(request("Bearer pgk_wrong")), .unauthorized(reason: "the sender key is not valid"))
        XCTAssertEqual(gate.authorize(request("Basic " + Data("pbx:".utf8).base64EncodedString())).status, 401)
        XCTAssertEqual(gate.authorize(request("Token pgk_secret")).status, 401)
    }

    /// An authorized send reads the keys once; only a refusal or a loopback caller without
    /// keys asks whether any key exists.
    func testAValidKeyIsOneRead() throws {
        try keys.addSenderKey(name: "pbx1", digest: String("pgk_secret".reversed()))
        var before = keys.reads
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret", from: "192.0.2.7")).status, 200)
        XCTAssertEqual(keys.reads - before, 1)
        before = keys.reads
        XCTAssertEqual(gate.authorize(request("Bearer pgk_wrong", from: "192.0.2.7")).status, 401)
        XCTAssertEqual(keys.reads - before, 2)
        _ = try keys.revokeSenderKey(name: "pbx1")
        // The revoked key is no key at all: without any, a remote caller is refused as before.
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret", from: "192.0.2.7")).status, 403)
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret")), .allowed(.loopback))
    }

    /// Whether any key exists is read at most once per `keyPresenceSeconds`: a keyless
    /// loopback caller sees the first key at most that late; a presented key, at once.
    func testWhetherAnyKeyExistsIsReadOncePerBound() throws {
        let clock = Locked(0.0)
        let gate = SenderAuthorization(keys: keys, digest: { String($0.reversed()) }, now: { clock.withLock { $0 } })
        XCTAssertEqual(gate.authorize(request()), .allowed(.loopback))
        let before = keys.reads
        XCTAssertEqual(gate.authorize(request()), .allowed(.loopback))
        XCTAssertEqual(keys.reads, before, "the answer is reused")
        try keys.addSenderKey(name: "pbx1", digest: String("pgk_secret".reversed()))
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret")), .allowed(Sender(name: "pbx1", scope: .unrestricted)))
        clock.withLock { $0 += SenderAuthorization.keyPresenceSeconds / 2 }
        XCTAssertEqual(gate.authorize(request()), .allowed(.loopback), "within the bound")
        clock.withLock { $0 += SenderAuthorization.keyPresenceSeconds / 2 }
        XCTAssertEqual(gate.authorize(request()).status, 401, "the bound passed")
        _ = try keys.revokeSenderKey(name: "pbx1")
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret")).status, 401, "a revoked key is refused at once")
        clock.withLock { $0 += SenderAuthorization.keyPresenceSeconds }
        XCTAssertEqual(gate.authorize(request("Bearer pgk_secret")), .allowed(.loopback))
    }

    func testAStoreFailureIsNotAnAnswerAboutTheKey() {
        keys.failing = true
        XCTAssertEqual(gate.authorize(request()).status, 500)
    }
}
