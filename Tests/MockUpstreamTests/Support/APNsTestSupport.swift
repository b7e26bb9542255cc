import Foundation
import MockUpstream
import PushCrypto
import XCTest

/// The fixture APNs key and helpers to mint provider tokens and requests with it.
enum APNsTestKey {
    static func signingKey() throws -> APNsSigningKey {
        try APNsSigningKey(pem: MockFixtures.text(MockFixtures.apnsKeyFile))
    }

    /// A provider token of the fixture key issued `age` seconds ago.
    static func token(age: Int = 0, keyID: String = MockFixtures.apnsKeyID, teamID: String = MockFixtures.apnsTeamID)
        throws -> String
    {
        try APNsProviderToken.sign(
            keyID: keyID, teamID: teamID, issuedAt: Int(Date().timeIntervalSince1970) - age, key: signingKey())
    }
}

/// A 32-byte hex device token, distinct per `seed`.
func deviceToken(_ seed: Int = 1) -> String {
    String(repeating: String(format: "%02x", seed % 256), count: 32)
}

let alertPayload = #"{"aps":{"alert":"hello"}}"#.bytes

/// A mock APNs for one test: fixture key, fixture TLS, token updates allowed at once (tests mint
/// several tokens), plus whatever `adjust` changes.
func startAPNs(_ adjust: (inout MockAPNsConfiguration) -> Void = { _ in }) throws -> MockAPNs {
    var configuration = MockAPNsConfiguration(providerKeys: [try .fixture])
    configuration.providerTokenUpdateInterval = .zero
    configuration.eventLoopThreads = 1
    adjust(&configuration)
    return try MockAPNs(configuration: configuration)
}

extension MockAPNs {
    func url(token: String) -> String { baseURL + "/3/device/" + token }

    /// POSTs a push with the usual headers (topic, push type); `headers` override them.
    func send(
        to token: String = deviceToken(), providerToken: String? = nil, headers: [String: String] = [:],
        body: [UInt8] = alertPayload, extraArguments: [String] = []
    ) throws -> CurlResponse {
        var all = ["apns-topic": "com.example.pushgate", "apns-push-type": "alert"]
        if let providerToken { all["authorization"] = "bearer \(providerToken)" }
        all.merge(headers) { $1 }
        all = all.filter { !$0.value.isEmpty }  // "" in `headers` means: leave the header out
        return try Curl.post(url(token: token), headers: all, body: body, extraArguments: extraArguments)
    }
}
