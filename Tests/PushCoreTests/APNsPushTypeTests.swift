import PushCore
import XCTest

/// Apple's rules per push type (`APNsPushType`) and the controls every way in checks
/// (`APNsControlRefusal`), against Apple's table written out here.
final class APNsPushTypeTests: XCTestCase {
    func testTopicsAreTheBundleIDWithEachTypesSuffix() {
        let expected: [APNsPushType: String?] = [
            .alert: "com.example.app", .background: "com.example.app",
            .location: "com.example.app.location-query", .voip: "com.example.app.voip",
            .complication: "com.example.app.complication", .fileprovider: "com.example.app.pushkit.fileprovider",
            .mdm: nil, .liveactivity: "com.example.app.push-type.liveactivity",
            .pushtotalk: "com.example.app.voip-ptt", .widgets: "com.example.app.push-type.widgets",
            .controls: "com.example.app.push-type.controls",
        ]
        XCTAssertEqual(Set(expected.keys), Set(APNsPushType.allCases), "every type has a row")
        for (type, topic) in expected {
            XCTAssertEqual(type.topic(bundleID: "com.example.app"), topic, "\(type)")
            if let topic {
                XCTAssertEqual(type.bundleID(topic: topic), "com.example.app", "\(type) back to the bundle id")
            }
        }
    }

    func testABundleIDThatEndsWithTheSuffixIsTheTopic() {
        XCTAssertEqual(APNsPushType.voip.topic(bundleID: "com.example.app.voip"), "com.example.app.voip")
        XCTAssertEqual(APNsPushType.pushtotalk.topic(bundleID: "com.example.voip"), "com.example.voip.voip-ptt")
        XCTAssertEqual(APNsPushType.voip.bundleID(topic: "com.other"), "com.other", "no suffix: the topic is kept")
        XCTAssertEqual(APNsPushType.voip.bundleID(topic: ".voip"), ".voip", "a suffix alone is no bundle id")
        XCTAssertTrue(APNsPushType.voip.accepts(topic: "com.example.app.voip"))
        XCTAssertFalse(APNsPushType.voip.accepts(topic: "com.example.app"))
        XCTAssertFalse(APNsPushType.voip.accepts(topic: ".voip"))
        XCTAssertFalse(APNsPushType.pushtotalk.accepts(topic: "com.example.app.voip"))
        XCTAssertTrue(APNsPushType.alert.accepts(topic: "com.example.app.voip"), "alert takes any topic")
        XCTAssertTrue(APNsPushType.mdm.accepts(topic: "com.apple.mgmt.External.1"))
    }

    func testPrioritiesExpirationsAndLimits() {
        for type in APNsPushType.allCases {
            XCTAssertTrue(type.acceptedPriorities.contains(type.defaultPriority), "\(type)'s default is accepted")
        }
        XCTAssertEqual(APNsPushType.allCases.filter { $0.defaultPriority == 5 }, [.background, .widgets])
        XCTAssertEqual(APNsPushType.background.acceptedPriorities, [1, 5])
        XCTAssertEqual(APNsPushType.pushtotalk.acceptedPriorities, [10])
        XCTAssertEqual(APNsPushType.allCases.filter { $0.requiredExpiration != nil }, [.pushtotalk])
        XCTAssertEqual(APNsPushType.pushtotalk.requiredExpiration, 0)
        XCTAssertEqual(APNsPushType.allCases.filter { $0.payloadLimit != 4096 }, [.voip])
        XCTAssertEqual(APNsPushType.voip.payloadLimit, 5120)
        XCTAssertEqual(
            APNsPushType.names,
            "alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls")
    }

    func testControlRefusals() {
        func check(_ message: APNsMessage, _ type: APNsPushType = .alert) -> APNsControlRefusal? {
            APNsControlRefusal.check(message, pushType: type)
        }
        let payload = Array(#"{"aps":{}}"#.utf8)
        XCTAssertNil(check(APNsMessage(payload: payload, priority: 10, expiration: 0, collapseID: String(repeating: "c", count: 64))))
        XCTAssertNil(check(APNsMessage(payload: payload, priority: 10, expiration: 0), .pushtotalk))
        XCTAssertNil(check(APNsMessage(payload: payload), .pushtotalk), "absent controls take the type's defaults")

        let long = check(APNsMessage(payload: payload, collapseID: String(repeating: "é", count: 33)))
        XCTAssertEqual(long, APNsControlRefusal(control: .collapseID, detail: "must be at most 64 bytes (it is 66)"))
        XCTAssertEqual(long?.appleReason, "BadCollapseId")
        XCTAssertEqual(check(APNsMessage(payload: payload, collapseID: ""))?.control, .collapseID)

        let background = check(APNsMessage(payload: payload, priority: 10), .background)
        XCTAssertEqual(background?.detail, "must be 1 or 5 for background pushes, not 10")
        XCTAssertEqual(background?.appleReason, "BadPriority")
        XCTAssertEqual(check(APNsMessage(payload: payload, priority: 7))?.detail, "must be 1, 5 or 10 for alert pushes, not 7")
        XCTAssertEqual(
            check(APNsMessage(payload: payload, priority: 5), .pushtotalk)?.detail,
            "must be 10 for pushtotalk pushes, not 5")

        XCTAssertEqual(check(APNsMessage(payload: payload, expiration: -5))?.appleReason, "BadExpirationDate")
        XCTAssertEqual(
            check(APNsMessage(payload: payload, expiration: 1_900_000_000), .pushtotalk)?.detail,
            "must be 0 for pushtotalk pushes, not 1900000000")
    }
}
