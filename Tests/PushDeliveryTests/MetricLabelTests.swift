import Foundation
import PushCore
import XCTest

@testable import PushDelivery

/// The labels the delivery metrics put on what comes from outside: bounded whatever an
/// upstream answers, and each push's result named as the alert rules name it.
final class MetricLabelTests: XCTestCase {
    private func reply(_ status: Int, _ body: String) -> UpstreamOutcome {
        .success(UpstreamResponse(status: status, body: Array(body.utf8)))
    }

    func testAPNsAnswersBecomeTheirStatusAndReason() {
        XCTAssertEqual(UpstreamMeter.labels(reply(200, ""), provider: .apns).status, "200")
        XCTAssertEqual(UpstreamMeter.labels(reply(200, ""), provider: .apns).reason, "ok")
        let unregistered = UpstreamMeter.labels(
            reply(410, #"{"reason":"Unregistered","timestamp":1}"#), provider: .apns)
        XCTAssertEqual(unregistered.status, "410")
        XCTAssertEqual(unregistered.reason, "Unregistered")
        XCTAssertEqual(
            UpstreamMeter.labels(reply(400, #"{"reason":"BadDeviceToken"}"#), provider: .apns).reason,
            "BadDeviceToken")
        XCTAssertEqual(
            UpstreamMeter.labels(reply(403, #"{"reason":"InvalidProviderToken"}"#), provider: .apns).reason,
            "InvalidProviderToken")
    }

    func testFCMAnswersBecomeTheirErrorCode() {
        let body =
            #"{"error": {"code": 404, "message": "Requested entity was not found.", "status": "NOT_FOUND", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "UNREGISTERED"}]}}"#
        let labels = UpstreamMeter.labels(reply(404, body), provider: .fcm)
        XCTAssertEqual(labels.status, "404")
        XCTAssertEqual(labels.reason, "UNREGISTERED")
    }

    /// Push services share no reason words: the verdict's word, whatever the service wrote.
    func testWebPushAnswersBecomeTheVerdictsWord() {
        XCTAssertEqual(UpstreamMeter.labels(reply(201, ""), provider: .web).status, "201")
        XCTAssertEqual(UpstreamMeter.labels(reply(201, ""), provider: .web).reason, "ok")
        XCTAssertEqual(
            UpstreamMeter.labels(reply(410, #"{"errno":103,"message":"Gone \#(UUID())"}"#), provider: .web).reason,
            "Gone")
        XCTAssertEqual(UpstreamMeter.labels(reply(403, #"{"reason":"BadJwtToken"}"#), provider: .web).reason, "Forbidden")
        XCTAssertEqual(UpstreamMeter.labels(reply(429, "<html>slow</html>"), provider: .web).reason, "TooManyRequests")
        XCTAssertEqual(UpstreamMeter.labels(reply(418, "teapot"), provider: .web).reason, "Refused")
    }

    func testWhatNoDocumentNamesIsOther() {
        // A made-up reason, markup, a long text, a body that is no JSON: never a label of its own.
        for body in [#"{"reason":"Whatever-\#(UUID().uuidString)"}"#, #"{"reason":"<b>x</b>"}"#, "not json", ""] {
            XCTAssertEqual(UpstreamMeter.labels(reply(400, body), provider: .apns).reason, "other", body)
            XCTAssertEqual(UpstreamMeter.labels(reply(500, body), provider: .fcm).reason, "other", body)
        }
        XCTAssertEqual(UpstreamReasonLabel.bounded("QUOTA_EXCEEDED: slow down"), "QUOTA_EXCEEDED")
        XCTAssertEqual(UpstreamReasonLabel.bounded("Unregistered"), "Unregistered")
        XCTAssertEqual(UpstreamReasonLabel.bounded("unregistered"), "other", "documented words only, as spelled")
    }

    func testTransportFailuresAreNamedByKind() {
        XCTAssertEqual(UpstreamMeter.labels(.failure(.timeout("x")), provider: .apns).status, "none")
        XCTAssertEqual(UpstreamMeter.labels(.failure(.timeout("x")), provider: .apns).reason, "timeout")
        XCTAssertEqual(
            UpstreamMeter.labels(.failure(.connectionLost("reset")), provider: .fcm).reason, "connection_lost")
        XCTAssertEqual(UpstreamMeter.labels(.failure(.tls("bad cert")), provider: .fcm).reason, "tls")
    }

    func testResultsOfPushesAndOfOutboxRows() {
        XCTAssertEqual(PushResultLabel(DeliveryResult.delivered(id: nil)), .delivered)
        XCTAssertEqual(PushResultLabel(DeliveryResult.deadToken(reason: "Unregistered", since: nil)), .deadToken)
        XCTAssertEqual(PushResultLabel(DeliveryResult.rejected(status: 400, reason: "BadTopic")), .rejected)
        XCTAssertEqual(PushResultLabel(DeliveryResult.retryLater(reason: "503", afterSeconds: nil)), .retry)
        // The outbox's dead letters: refused upstream, or given up, as OutboxOutcome words them.
        let policy = RetryPolicy()
        let refused = OutboxOutcome(.rejected(status: 400, reason: "BadTopic"), attempts: 1, policy: policy, now: 0)
        XCTAssertEqual(PushResultLabel(refused), .rejected)
        let spent = OutboxOutcome(
            .retryLater(reason: "503", afterSeconds: nil), attempts: policy.maxAttempts, policy: policy, now: 0)
        XCTAssertEqual(PushResultLabel(spent), .givenUp)
        XCTAssertEqual(PushResultLabel(OutboxOutcome.retry(at: 1, error: "x")), .retry)
        XCTAssertEqual(PushResultLabel(OutboxOutcome.deadToken(reason: "x", since: nil)), .deadToken)
        XCTAssertEqual(CountingOutboxStore.dialect("beams:publish"), "beams")
        XCTAssertEqual(CountingOutboxStore.dialect("cospace:event"), "cospace")
        XCTAssertEqual(CountingOutboxStore.dialect("bridge:topic"), "bridge")
        XCTAssertEqual(CountingOutboxStore.dialect("something new"), "other")
    }
}
