import PushCore
import XCTest

/// What the dialects refuse before storing a subscription, and in which words. The point check
/// is PushCrypto's (tested there, and through serve in the integration tests); here it is a
/// recorded closure, to show that it is asked and that its answer decides.
final class WebPushSubscriptionCheckTests: XCTestCase {
    private func base64(
        endpoint: String = "https://fcm.googleapis.com/fcm/send/abc", auth: String = WebPushSubscriptionTests.auth
    )
        -> String
    {
        let json =
            #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(WebPushSubscriptionTests.p256dh)","auth":"\#(auth)"}}"#
        return Base64.encode(Array(json.utf8))
    }

    func testTheEndpointTheKeysAndTheShapeAreChecked() {
        let asked = Locked<[[UInt8]]>([])
        let onCurve = WebPushSubscriptionCheck(endpoints: .publicPushServices) { point in
            asked.withLock { $0.append(point) }
            return true
        }
        let offCurve = WebPushSubscriptionCheck(endpoints: .publicPushServices) { _ in false }

        guard case .success(let subscription) = onCurve.subscription(fromBase64: base64()) else {
            return XCTFail("a good subscription was refused")
        }
        XCTAssertEqual(asked.withLock { $0 }, [subscription.p256dh])
        XCTAssertEqual(
            offCurve.subscription(fromBase64: base64()), .failure(.refused("keys.p256dh is not a point on P-256")))
        XCTAssertEqual(
            onCurve.subscription(fromBase64: base64(endpoint: "https://169.254.169.254/latest")),
            .failure(.refused("push endpoint https://169.254.169.254 is not a push service this server sends to")))
        // The endpoint is judged before the keys: the operator's list is the first answer.
        XCTAssertEqual(
            offCurve.subscription(fromBase64: base64(endpoint: "https://evil.example/x")),
            .failure(.refused("push endpoint https://evil.example is not a push service this server sends to")))
        XCTAssertEqual(
            onCurve.subscription(fromBase64: base64(auth: "BTBZMqHH6r4Tts7J_aSI")), .failure(.notASubscription))
        XCTAssertEqual(onCurve.subscription(fromBase64: "not base64!"), .failure(.notASubscription))
    }
}
