import Foundation
import MockUpstream
import PushCore
import PushCrypto
import XCTest

/// A mock FCM for one test with the fixture service account registered.
func startFCM(_ adjust: (inout MockFCMConfiguration) -> Void = { _ in }) throws -> MockFCM {
    var configuration = MockFCMConfiguration(serviceAccounts: [try .fixture])
    configuration.eventLoopThreads = 1
    adjust(&configuration)
    return try MockFCM(configuration: configuration)
}

extension MockFCM {
    /// The fixture service account, its `token_uri` pointing at this mock.
    func serviceAccount() throws -> ServiceAccount {
        try ServiceAccount(json: serviceAccountJSON())
    }

    /// POSTs the JWT-bearer grant with `assertion` to the token endpoint.
    func requestToken(
        assertion: String, grantType: String = "urn:ietf:params:oauth:grant-type:jwt-bearer", http1: Bool = false
    )
        throws -> CurlResponse
    {
        let form = "grant_type=\(grantType.formEncoded)&assertion=\(assertion.formEncoded)"
        return try Curl.post(
            tokenURI, headers: ["content-type": "application/x-www-form-urlencoded"], body: form.bytes, http1: http1)
    }

    /// A fresh access token for the fixture account, by a real token exchange.
    func accessToken() throws -> String {
        let assertion = try serviceAccount().assertion(
            scope: ServiceAccount.firebaseMessagingScope, issuedAt: Int(Date().timeIntervalSince1970))
        let response = try requestToken(assertion: assertion)
        return try XCTUnwrap(response.json?["access_token"] as? String, response.body)
    }

    var sendURL: String { baseURL + "/v1/projects/\(MockFixtures.firebaseProjectID)/messages:send" }

    /// POSTs `message` (the whole body) to messages:send with `accessToken`.
    func send(_ body: String, accessToken: String?, url: String? = nil, http1: Bool = false) throws -> CurlResponse {
        var headers = ["content-type": "application/json"]
        if let accessToken { headers["authorization"] = "Bearer \(accessToken)" }
        return try Curl.post(url ?? sendURL, headers: headers, body: body.bytes, http1: http1)
    }
}

func message(token: String = "fcm-token-1", data: String = #"{"kind":"call"}"#) -> String {
    #"{"message":{"token":"\#(token)","data":\#(data)}}"#
}

extension CurlResponse {
    /// Google's `error` object.
    var googleError: [String: Any]? { json?["error"] as? [String: Any] }

    /// The `errorCode` of the FcmError detail.
    var fcmErrorCode: String? {
        let details = googleError?["details"] as? [[String: Any]] ?? []
        return details.first { ($0["@type"] as? String) == "type.googleapis.com/google.firebase.fcm.v1.FcmError" }?[
            "errorCode"]
            as? String
    }
}

extension String {
    /// application/x-www-form-urlencoded value encoding.
    var formEncoded: String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return addingPercentEncoding(withAllowedCharacters: allowed) ?? self
    }
}
