import Foundation
import MockUpstream
import XCTest

/// An integration test of a real pushgate (nginx and `serve`) whose APNs and FCM are the
/// repository's mocks: both mocks are up before each test, and everything is stopped after it.
class MockUpstreamsTestCase: XCTestCase {
    var apns: MockAPNs!
    var fcm: MockFCM!
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        try super.setUpWithError()
        apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
    }

    /// Starts pushgate pointed at the mocks, with `environment` added to what that takes.
    func startPushgate(environment: [String: String] = [:]) throws {
        pushgate = try PushgateInstance(
            environment: PushgateInstance.upstreams(apns: apns, fcm: fcm).merging(environment) { _, own in own })
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        apns?.shutdown()
        apns = nil
        fcm?.shutdown()
        fcm = nil
        super.tearDown()
    }
}
