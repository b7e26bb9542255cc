import Foundation
import PushAPI
import PushCore
import XCTest

/// A publish's delivery controls (`apns.collapse_id/expiration/priority`, `fcm.time_to_live/
/// collapse_key/priority`): taken out of the payload into what the upstream reads, or refused
/// with a 422 that names the field.
extension BeamsTests {
    private func publish(_ halves: String) -> Response {
        publishAPI.handle(json("POST", "/publish_api/v1/instances/key-ios/publishes", #"{"interests":["a"],\#(halves)}"#))
    }

    func testPublishControlsBecomeHeadersAndAndroidOptions() throws {
        store.apps = [ios, android]
        let response = publish(
            #""apns":{"aps":{"alert":"Hi"},"collapse_id":"score","expiration":1900000000,"priority":5,"data":{"k":1}},"#
                + #""fcm":{"notification":{"title":"t"},"time_to_live":600,"collapse_key":"score","priority":"high"}"#)
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        let message = try XCTUnwrap(store.published.last?.message)
        let apns = try XCTUnwrap(message.apns)
        XCTAssertEqual(apns.collapseID, "score")
        XCTAssertEqual(apns.expiration, 1_900_000_000)
        XCTAssertEqual(apns.priority, 5)
        XCTAssertEqual(
            try JSONValue.parse(apns.payload),
            .object(["aps": .object(["alert": .string("Hi")]), "data": .object(["k": .number(1)])]),
            "the controls are headers, not part of what the phone gets")
        XCTAssertEqual(
            message.fcm?.fields,
            [
                "notification": .object(["title": .string("t")]),
                "android": .object(["ttl": .string("600s"), "collapse_key": .string("score"), "priority": .string("HIGH")]),
            ])

        XCTAssertEqual(publish(#""apns":{"aps":{},"priority":null,"collapse_id":null}"#).status, 200, "null is not given")
        XCTAssertNil(store.published.last?.message.apns?.priority)
    }

    func testPublishControlsAreCheckedWithA422NamingTheField() {
        store.apps = [ios, android]
        let before = store.published.count
        let cases: [(String, String)] = [
            (#""apns":{"aps":{},"priority":1}"#, "apns.priority must be 5 or 10, not 1."),
            (#""apns":{"aps":{},"priority":"10"}"#, "apns.priority must be a whole number."),
            (#""apns":{"aps":{},"expiration":1.5}"#, "apns.expiration must be a whole number."),
            (#""apns":{"aps":{},"expiration":-1}"#, "apns.expiration must be a Unix time in seconds"),
            (#""apns":{"aps":{},"collapse_id":7}"#, "apns.collapse_id must be a string."),
            (
                #""apns":{"aps":{},"collapse_id":"\#(String(repeating: "x", count: 65))"}"#,
                "apns.collapse_id must be at most 64 bytes (it is 65)."
            ),
            (#""fcm":{"data":{},"time_to_live":2419201}"#, "fcm.time_to_live must be 0 to 2419200 seconds"),
            (#""fcm":{"data":{},"time_to_live":"1h"}"#, "fcm.time_to_live must be a whole number."),
            (#""fcm":{"data":{},"collapse_key":""}"#, "fcm.collapse_key must not be empty."),
            (#""fcm":{"data":{},"priority":"urgent"}"#, "fcm.priority must be \"normal\" or \"high\"."),
            (#""fcm":{"data":{},"priority":10}"#, "fcm.priority must be a string."),
        ]
        for (halves, expected) in cases {
            let response = publish(halves)
            XCTAssertEqual(response.status, 422, halves)
            XCTAssertEqual(body(response)?.objectValue?["error"], .string("Unprocessable Entity"), halves)
            let description = body(response)?.objectValue?["description"]?.stringValue ?? ""
            XCTAssertTrue(description.hasPrefix(expected), "\(halves): \(description)")
        }
        XCTAssertEqual(store.published.count, before, "nothing refused reached the store")
    }
}
