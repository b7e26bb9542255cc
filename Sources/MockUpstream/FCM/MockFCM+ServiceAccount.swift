import Foundation
import PushCore

extension MockFCM {
    /// A Google service-account JSON file's text whose `token_uri` points at this mock, holding
    /// `privateKeyPEM` (by default the fixture RSA key, registered by `MockFCMServiceAccount.fixture`).
    /// Tests build it at run time because the mock's port is only known then.
    public func serviceAccountJSON(
        privateKeyPEM: String? = nil, clientEmail: String = MockFixtures.serviceAccountEmail,
        projectID: String = MockFixtures.firebaseProjectID,
        privateKeyID: String? = "0123456789abcdef0123456789abcdef01234567"
    ) throws -> String {
        var fields: [String: JSONValue] = [
            "type": .string("service_account"),
            "project_id": .string(projectID),
            "private_key": .string(try privateKeyPEM ?? MockFixtures.text(MockFixtures.serviceAccountKeyFile)),
            "client_email": .string(clientEmail),
            "client_id": .string("100000000000000000000"),
            "auth_uri": .string("https://accounts.google.com/o/oauth2/auth"),
            "token_uri": .string(tokenURI),
            "universe_domain": .string("googleapis.com"),
        ]
        if let privateKeyID { fields["private_key_id"] = .string(privateKeyID) }
        return String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }

    /// Writes `serviceAccountJSON(…)` to `url` and returns `url`.
    @discardableResult
    public func writeServiceAccount(
        to url: URL, privateKeyPEM: String? = nil, clientEmail: String = MockFixtures.serviceAccountEmail,
        projectID: String = MockFixtures.firebaseProjectID
    ) throws -> URL {
        let json = try serviceAccountJSON(privateKeyPEM: privateKeyPEM, clientEmail: clientEmail, projectID: projectID)
        try Data(json.utf8).write(to: url)
        return url
    }
}
