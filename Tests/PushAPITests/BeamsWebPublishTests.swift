import Foundation
import PushAPI
import PushCore
import PushTesting
import XCTest

/// A Beams publish's `web` half: the push message the Beams service worker reads, with the
/// `data.pusher` fields it shows nothing without, and Beams' own refusals.
final class BeamsWebPublishTests: XCTestCase {
    let store = BeamsTests.FakeBeamsStore()
    let web = BeamsApp(id: AppID("com.example.web")!, platform: .web, appKey: "key-web")
    let ios = BeamsApp(id: AppID("com.example.ios")!, platform: .apns, appKey: "key-web")

    override func setUp() {
        store.apps = [ios, web]
    }

    var publishAPI: RouteGroup {
        let api = SenderOnly(
            BeamsPublishAPI(
                store: store, identifiers: RandomIdentifier(randomBytes: { [UInt8](repeating: 7, count: $0) }),
                wakeOutbox: {}),
            senders: SenderAuthorization(keys: InMemorySenderKeys(), digest: { $0 }))
        return RouteGroup(errors: BeamsErrors(), api.routes)
    }

    func publish(_ body: String) -> Response {
        publishAPI.handle(
            Request(
                method: "POST", path: "/publish_api/v1/instances/key-web/publishes/interests",
                headers: ["content-type": "application/json"], body: Array(body.utf8)))
    }

    func testTheWebHalfCarriesThePusherFieldsAndItsTTL() throws {
        let response = publish(
            #"{"interests":["news"],"web":{"notification":{"title":"Hi","body":"There","deep_link":"https://shop.example/x","hide_notification_if_site_has_focus":true},"data":{"order":7},"time_to_live":3600}}"#
        )
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        let published = try XCTUnwrap(store.published.first)
        XCTAssertEqual(published.appIDs, [web.id], "the instance's APNs app gets no half")
        let message = try XCTUnwrap(published.message.web)
        XCTAssertEqual(message.ttl, 3600)
        let publishID = "pubid-07070707-0707-4707-8707-070707070707"
        XCTAssertEqual(try JSONValue.parse(response.body).objectValue?["publishId"], .string(publishID))
        XCTAssertEqual(
            try JSONValue.parse(message.payload),
            .object([
                "notification": .object([
                    "title": .string("Hi"), "body": .string("There"), "deep_link": .string("https://shop.example/x"),
                    "hide_notification_if_site_has_focus": .bool(true),
                ]),
                "data": .object([
                    "order": .number(7),
                    "pusher": .object([
                        "instanceId": .string("key-web"), "publishId": .string(publishID),
                        "hasDisplayableContent": .bool(true), "hasData": .bool(true),
                    ]),
                ]),
            ]))
        XCTAssertEqual(publish(#"{"interests":["news"],"web":{"data":{"a":"b"}}}"#).status, 200)
        XCTAssertEqual(store.published.last?.message.web?.ttl, 2_419_200, "Beams' 4 weeks by default")
    }

    func testBeamsRefusalsOfTheWebHalf() {
        let cases: [(String, String)] = [
            (#"{"data":{"pusher":{}}}"#, "cannot contain the key \"pusher\""),
            (#"{"notification":{"title":"t"},"time_to_live":2419201}"#, "time_to_live"),
            (#"{"notification":{"title":"t"},"time_to_live":1.5}"#, "time_to_live"),
            (#"{"notification":{"title":7}}"#, "web.notification.title must be a string"),
            (#"{"notification":{"hide_notification_if_site_has_focus":"yes"}}"#, "true or false"),
            (#"{}"#, "notification, data or both"),
            (#"{"data":{"big":"\#(String(repeating: "x", count: 4000))"}}"#, "at most 3993"),
        ]
        for (web, fragment) in cases {
            let response = publish(#"{"interests":["news"],"web":\#(web)}"#)
            XCTAssertEqual(response.status, 422, web)
            let description = (try? JSONValue.parse(response.body))?.objectValue?["description"]?.stringValue ?? ""
            XCTAssertTrue(description.contains(fragment), "\(web): \(description)")
        }
        XCTAssertEqual(publish(#"{"interests":["news"],"web":"hi"}"#).status, 422)
        XCTAssertTrue(store.published.isEmpty)
    }
}
