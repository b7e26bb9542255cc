import MockUpstream
import XCTest

extension MockWebPush {
    /// The mock push service as the integration tests run it: one event-loop thread, enough
    /// for their few pushes, beside pushgate's own threads on the test machine's cores.
    static func started() throws -> MockWebPush {
        var configuration = MockWebPushConfiguration()
        configuration.eventLoopThreads = 1
        return try MockWebPush(configuration: configuration)
    }
}

/// An integration test of a real pushgate (nginx and `serve`) whose only upstream is the
/// repository's mock push service, listed as the one Web Push endpoint: both are up before
/// each test, and stopped after it.
class MockWebPushTestCase: XCTestCase {
    var push: MockWebPush!
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        try super.setUpWithError()
        push = try MockWebPush.started()
        pushgate = try PushgateInstance(environment: PushgateInstance.upstreams(apns: nil, webPush: push))
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        push?.shutdown()
        push = nil
        super.tearDown()
    }
}
