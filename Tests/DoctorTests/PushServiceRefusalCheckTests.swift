@testable import App
import Foundation
import PushCore
import XCTest

/// A web app whose push service last answered 401 or 403 is a problem doctor names; other
/// last problems, other platforms, and apps without problems are not its business.
final class PushServiceRefusalCheckTests: XCTestCase {
    private func app(_ id: String, web: Bool = true) -> RegisteredApp {
        RegisteredApp(
            id: AppID(id)!,
            credentials: web
                ? .webPush(vapidPrivateKeyPEM: "unused", subject: "mailto:ops@example.com")
                : .fcmServiceAccount(json: "{}", projectID: "p"))
    }

    func testOnlyAWebAppsNewestRefusalIsAProblem() {
        let refusal = "rejected (403): Forbidden: BadJwtToken (the push service refused the VAPID credentials of app web.a)"
        let findings = PushServiceRefusalCheck(
            apps: [app("web.a"), app("web.b"), app("web.c"), app("fcm.d", web: false)],
            problems: [
                AppProblem(appID: "web.a", outcome: refusal, at: 1_800_000_000),
                AppProblem(appID: "web.b", outcome: "dead token: Gone: gone", at: 1_800_000_000),
                AppProblem(appID: "fcm.d", outcome: "rejected (401): UNAUTHENTICATED", at: 1_800_000_000),
            ]
        ).run()
        XCTAssertEqual(findings.map(\.subject), ["app web.a"])
        XCTAssertEqual(findings.first?.verdict, .problem)
        let message = findings.first?.message ?? ""
        XCTAssertTrue(message.contains("at 2027-01-15T08:00:00Z (\(refusal))"), message)
        XCTAssertTrue(message.contains("apps add --replace --vapid-key-file"), message)
        XCTAssertTrue(PushServiceRefusalCheck.isCredentialRefusal("rejected (401): Unauthorized: x"))
        XCTAssertFalse(PushServiceRefusalCheck.isCredentialRefusal("rejected (400): BadRequest: x"))
    }
}
