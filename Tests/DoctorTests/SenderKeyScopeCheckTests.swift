@testable import App
import PushCore
import XCTest

/// `doctor`'s warning about keys that reach every app while several apps are registered.
final class SenderKeyScopeCheckTests: XCTestCase {
    let unscoped = SenderKey(name: "legacy", createdAt: 0, revokedAt: nil)
    let scoped = SenderKey(
        name: "tenant-a", createdAt: 0, revokedAt: nil, scope: SenderScope(apps: [AppID("com.example.a")!]))

    func testAnUnscopedKeyAmongSeveralAppsIsAWarning() {
        let findings = SenderKeyScopeCheck(keys: [scoped, unscoped], appCount: 2).run()
        XCTAssertEqual(findings.map(\.verdict), [.warning])
        XCTAssertTrue(findings[0].message.contains("legacy reaches every one of them"), findings[0].message)
        XCTAssertFalse(findings[0].message.contains("tenant-a"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("--app"), findings[0].message)
    }

    func testOneAppScopedKeysOrRevokedOnesAreFine() {
        XCTAssertEqual(SenderKeyScopeCheck(keys: [unscoped], appCount: 1).run().map(\.verdict), [.ok])
        XCTAssertEqual(SenderKeyScopeCheck(keys: [scoped], appCount: 3).run().map(\.verdict), [.ok])
        var revoked = unscoped
        revoked.revokedAt = 1
        XCTAssertEqual(SenderKeyScopeCheck(keys: [scoped, revoked], appCount: 3).run().map(\.verdict), [.ok])
    }
}
