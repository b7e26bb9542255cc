import Foundation
import XCTest

/// Beams user tokens as the server SDKs make them (HS256 over the key as UTF-8), signed by the
/// openssl command rather than by pushgate's own code.
enum BeamsTokenSigner {
    static func token(_ claims: [String: Any], key: String) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64URL(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let input = "\(header).\(payload)"
        let signed = try PushgateInstance.Output.of(
            "/bin/sh", ["-c", #"openssl dgst -sha256 -hmac "$1" -binary | openssl base64 -A"#, "sh", key],
            environment: ProcessInfo.processInfo.environment, stdin: input)
        XCTAssertEqual(signed.status, 0, signed.stderr)
        let signature = try XCTUnwrap(
            Data(base64Encoded: signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        return "\(input).\(base64URL(signature))"
    }
}
