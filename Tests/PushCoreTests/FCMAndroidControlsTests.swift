import PushCore
import XCTest

/// FCM's delivery controls (`FCMAndroidControls`): where HTTP v1 reads them, and the values
/// Google refuses.
final class FCMAndroidControlsTests: XCTestCase {
    func testFCMControlsGoIntoTheAndroidObject() {
        let message = FCMMessage(fields: [
            "data": .object(["k": .string("v")]), "android": .object(["restricted_package_name": .string("com.x")]),
        ])
        let controls = FCMAndroidControls(ttl: 3600, collapseKey: "score", priority: FCMAndroidControls.Priority(name: "high"))
        XCTAssertNil(controls.refusal())
        let applied = controls.applied(to: message)
        XCTAssertEqual(applied.fields["data"], message.fields["data"])
        XCTAssertEqual(
            applied.fields["android"],
            .object([
                "restricted_package_name": .string("com.x"), "ttl": .string("3600s"), "collapse_key": .string("score"),
                "priority": .string("HIGH"),
            ]))
        XCTAssertEqual(FCMAndroidControls().applied(to: message), message, "no controls: the message as it was")
        XCTAssertEqual(FCMAndroidControls.Priority(name: "Normal"), .normal)
        XCTAssertNil(FCMAndroidControls.Priority(name: "urgent"))
        XCTAssertEqual(FCMAndroidControls(ttl: 2_419_201).refusal()?.control, .ttl)
        XCTAssertEqual(FCMAndroidControls(ttl: -1).refusal()?.control, .ttl)
        XCTAssertNil(FCMAndroidControls(ttl: 0).refusal())
        XCTAssertEqual(FCMAndroidControls(collapseKey: "").refusal()?.control, .collapseKey)
    }
}
