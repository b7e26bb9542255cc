import Foundation
import PushAPI
import PushCore
import PushTesting
import XCTest

/// The Beams client and publish APIs in-process, over an in-memory store.
final class BeamsTests: XCTestCase {
    /// Clients, devices and interests in dictionaries; publishes recorded instead of queued.
    final class FakeBeamsStore: BeamsStore, @unchecked Sendable {
        var apps: [BeamsApp] = []
        var clients: [String: (app: BeamsApp, token: DeviceToken)] = [:]
        var interests: [String: Set<String>] = [:]
        var published: [(appIDs: [AppID], interests: [String], message: OutboxMessage)] = []

        func beamsInstance(appKey: String) throws -> BeamsInstance? {
            let behind = apps.filter { $0.appKey == appKey }
            return behind.isEmpty ? nil : BeamsInstance(appKey: appKey, apps: behind)
        }
        func beamsClient(id: String) throws -> BeamsClient? { clients[id].map { BeamsClient(id: id, app: $0.app) } }
        func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws {
            let app = try XCTUnwrap(apps.first { $0.id == appID })
            clients[id] = (app, token)
        }
        func replaceBeamsClientToken(clientID: String, token: DeviceToken, reportedToken: String) throws -> Bool {
            guard let client = clients[clientID] else { return false }
            clients[clientID] = (client.app, token)
            return true
        }
        func setBeamsInterest(clientID: String, appKey: String, interest: String, subscribed: Bool) throws
            -> BeamsInterestChange
        {
            guard let client = clients[clientID] else { return .unknownClient }
            guard client.app.appKey == appKey else { return .wrongAppKey }
            if subscribed { interests[clientID, default: []].insert(interest) } else { interests[clientID]?.remove(interest) }
            return .done
        }
        func publishToInterests(appIDs: [AppID], interests wanted: [String], message: OutboxMessage, firstStep: Int)
            throws -> QueuedFanOut
        {
            published.append((appIDs, wanted, message))
            let devices = Set(
                clients.filter { id, client in
                    appIDs.contains(client.app.id) && !(interests[id] ?? []).isDisjoint(with: wanted)
                }.map(\.value.token))
            return QueuedFanOut(queued: devices.count, continues: false)
        }
    }


    let store = FakeBeamsStore()
    let ios = BeamsApp(id: AppID("com.example.ios")!, platform: .apns, appKey: "key-ios")
    /// The Android app of the same product, behind the same instance.
    let android = BeamsApp(id: AppID("com.example.android")!, platform: .fcm, appKey: "key-ios")
    let token = String(repeating: "ab", count: 32)
    /// Counts up, so that ids are predictable and distinct.
    let counter = Counter()

    final class Counter: @unchecked Sendable {
        var value: UInt8 = 0
        var wakes = 0
    }

    override func setUp() {
        store.apps = [ios]
    }

    var identifiers: RandomIdentifier {
        RandomIdentifier(randomBytes: { [counter] count in
            counter.value += 1
            return [UInt8](repeating: counter.value, count: count)
        })
    }

    var clientAPI: RouteGroup {
        RouteGroup(errors: BeamsErrors(), BeamsClientAPI(store: store, identifiers: identifiers).routes)
    }

    var publishAPI: RouteGroup {
        let api = SenderOnly(
            BeamsPublishAPI(store: store, identifiers: identifiers, wakeOutbox: { [counter] in counter.wakes += 1 }),
            senders: SenderAuthorization(keys: InMemorySenderKeys(), digest: { $0 }))
        return RouteGroup(errors: BeamsErrors(), api.routes)
    }

    func json(_ method: String, _ path: String, _ body: String, from address: String = "127.0.0.1") -> Request {
        Request(
            method: method, path: path, headers: ["content-type": "application/json"], body: Array(body.utf8),
            remoteAddress: address)
    }

    func body(_ response: Response) -> JSONValue? { try? JSONValue.parse(response.body) }

    func testRegisteringIssuesAVersion4UUIDAndStoresTheHexToken() throws {
        let response = clientAPI.handle(
            json("POST", "/client_api/v1/clients", #"{"app_key":"key-ios","platform_type":"apns","token":"\#(token.uppercased())"}"#))
        XCTAssertEqual(response.status, 201)
        let id = "01010101-0101-4101-8101-010101010101"
        XCTAssertEqual(
            body(response),
            .object(["id": .string(id), "platform_type": .string("apns"), "token": .string(token.uppercased())]))
        XCTAssertEqual(store.clients[id]?.token, DeviceToken.fromHex(token))
    }

    func testInterestNamesFollowTheDocumentsRule() throws {
        store.clients["c1"] = (ios, DeviceToken.fromHex(token)!)
        let allowed = ["a", "Z9", "_=@,.;", String(repeating: "x", count: 164)]
        for name in allowed {
            XCTAssertEqual(
                clientAPI.handle(json("POST", "/client_api/v1/clients/c1/interests/\(name)", #"{"app_key":"key-ios"}"#)).status,
                200, name)
        }
        XCTAssertEqual(store.interests["c1"], Set(allowed))
        for name in ["private-x", String(repeating: "x", count: 165), "a:b", "a%2Fb", "%C3%A9", "a*", "a%zz", "a%2", "a%00b"] {
            let response = clientAPI.handle(json("POST", "/client_api/v1/clients/c1/interests/\(name)", #"{"app_key":"key-ios"}"#))
            XCTAssertEqual(response.status, 400, name)
            XCTAssertEqual(body(response)?.objectValue?["error"], .string("Bad request"))
        }
        XCTAssertEqual(store.interests["c1"], Set(allowed))
    }

    func testAPublishQueuesBothHalvesAndWakesTheOutbox() throws {
        let response = publishAPI.handle(
            json(
                "POST", "/publish_api/v1/instances/key-ios/publishes",
                #"{"interests":["a","b_c"],"apns":{"aps":{"alert":"Hi!"}},"fcm":{"notification":{"title":"t"}},"web":{"notification":{"title":"t"}}}"#))
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        XCTAssertEqual(body(response), .object(["publishId": .string("pubid-01010101-0101-4101-8101-010101010101")]))
        let published = try XCTUnwrap(store.published.first)
        XCTAssertEqual(published.appIDs, [ios.id])
        XCTAssertEqual(published.interests, ["a", "b_c"])
        XCTAssertEqual(published.message.source, "beams:publish")
        XCTAssertEqual(published.message.apns?.payload, Array(#"{"aps":{"alert":"Hi!"}}"#.utf8))
        XCTAssertEqual(published.message.fcm?.fields, ["notification": .object(["title": .string("t")])])
        XCTAssertEqual(counter.wakes, 0, "nobody subscribed: nothing to wake the outbox for")
    }

    // MARK: One instance, both platforms

    func testClientsOfBothPlatformsRegisterUnderOneKeyIntoTheirPlatformsApp() throws {
        store.apps = [ios, android]
        let apple = clientAPI.handle(
            json("POST", "/client_api/v1/clients", #"{"app_key":"key-ios","platform_type":"apns","token":"\#(token)"}"#))
        XCTAssertEqual(apple.status, 201)
        for type in ["fcm", "gcm"] {
            let google = clientAPI.handle(
                json("POST", "/client_api/v1/clients", #"{"app_key":"key-ios","platform_type":"\#(type)","token":"iid:APA91b_\#(type)"}"#))
            XCTAssertEqual(google.status, 201)
        }
        XCTAssertEqual(store.clients.values.map(\.app.id.rawValue).sorted(), ["com.example.android", "com.example.android", "com.example.ios"])
        // A refreshed token keeps the client in its platform's app; the other platform is refused.
        let androidClient = try XCTUnwrap(store.clients.first { $0.value.app == android }?.key)
        let crossed = clientAPI.handle(
            json("PUT", "/client_api/v1/clients/\(androidClient)/token", #"{"platform_type":"apns","token":"\#(token)"}"#))
        XCTAssertEqual(crossed.status, 400)
        XCTAssertTrue(body(crossed)?.objectValue?["description"]?.stringValue?.contains("registered as FCM") ?? false)
    }

    func testTokensWithControlCharactersAreRefused() throws {
        store.apps = [ios, android]
        for (type, token) in [("fcm", #"iid:APA91b\u0000x"#), ("gcm", #"iid:APA91b\nx"#), ("fcm", #"iid:APA91b\u007fx"#), ("apns", #"00\u0000"#)] {
            let response = clientAPI.handle(
                json("POST", "/client_api/v1/clients", #"{"app_key":"key-ios","platform_type":"\#(type)","token":"\#(token)"}"#))
            XCTAssertEqual(response.status, 400, token)
            XCTAssertEqual(body(response)?.objectValue?["error"], .string("Bad request"))
        }
        XCTAssertTrue(store.clients.isEmpty)
    }

    func testAPlatformWithNoAppBehindTheKeyIsRefusedNamingIt() throws {
        let response = clientAPI.handle(
            json("POST", "/client_api/v1/clients", #"{"app_key":"key-ios","platform_type":"fcm","token":"iid:APA91b_x"}"#))
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(body(response)?.objectValue?["error"], .string("Bad request"))
        let description = body(response)?.objectValue?["description"]?.stringValue ?? ""
        XCTAssertTrue(description.contains("no FCM app"), description)
        XCTAssertTrue(store.clients.isEmpty)
    }

    func testAPublishToAnInstanceOfTwoAppsGoesToEachAppWithItsHalf() throws {
        store.apps = [android, ios]
        func publish(_ body: String) -> Response {
            publishAPI.handle(json("POST", "/publish_api/v1/instances/key-ios/publishes", body))
        }
        XCTAssertEqual(publish(#"{"interests":["a"],"apns":{"aps":{}},"fcm":{"data":{"k":"v"}}}"#).status, 200)
        XCTAssertEqual(publish(#"{"interests":["a"],"fcm":{"data":{"k":"v"}}}"#).status, 200)
        XCTAssertEqual(publish(#"{"interests":["a"],"apns":{"aps":{}}}"#).status, 200)
        XCTAssertEqual(store.published.map(\.appIDs), [[ios.id, android.id], [android.id], [ios.id]])
    }

    func testPublishedInterestNamesFollowTodaysRules() throws {
        let cases: [(String, String)] = [
            (#""a:b""#, "':'"), (#""""#, "empty"), ("\"\(String(repeating: "x", count: 165))\"", "165 characters"),
            (#""a b""#, "U+0020"), (#""a\u0000b""#, "U+0000"), (#""ok","é""#, "interests[1]"), (#"7"#, "interests[0] is not a string"),
            (#""ok",null"#, "not a string"),
        ]
        for (list, fragment) in cases {
            let response = publishAPI.handle(
                json("POST", "/publish_api/v1/instances/key-ios/publishes", #"{"interests":[\#(list)],"apns":{"aps":{}}}"#))
            XCTAssertEqual(response.status, 422, list)
            XCTAssertEqual(body(response)?.objectValue?["error"], .string("Unprocessable Entity"))
            let description = body(response)?.objectValue?["description"]?.stringValue ?? ""
            XCTAssertTrue(description.contains(fragment), "\(list): \(description)")
        }
        let longest = String(repeating: "x", count: 164)
        XCTAssertEqual(
            publishAPI.handle(
                json("POST", "/publish_api/v1/instances/key-ios/publishes", #"{"interests":["\#(longest)","_-=@,.;"],"apns":{"aps":{}}}"#)
            ).status, 200)
        XCTAssertEqual(store.published.count, 1, "only the valid publish reached the store")
    }

    func testARemotePublisherIsForbiddenWhileNoSenderKeyExists() {
        let response = publishAPI.handle(
            json(
                "POST", "/publish_api/v1/instances/key-ios/publishes", #"{"interests":["a"],"apns":{"aps":{}}}"#,
                from: "192.0.2.1"))
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(body(response)?.objectValue?["error"], .string("Forbidden"))
        XCTAssertTrue(body(response)?.objectValue?["description"]?.stringValue?.contains("keys add") ?? false)
        XCTAssertTrue(store.published.isEmpty)
    }

    func testStoreFailuresAnswer500InBeamsShapeWithTheDetailForTheLogOnly() {
        final class Broken: BeamsStore, @unchecked Sendable {
            struct Failure: Error {}
            func beamsInstance(appKey: String) throws -> BeamsInstance? { throw Failure() }
            func beamsClient(id: String) throws -> BeamsClient? { throw Failure() }
            func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws {}
            func replaceBeamsClientToken(clientID: String, token: DeviceToken, reportedToken: String) throws -> Bool { false }
            func setBeamsInterest(clientID: String, appKey: String, interest: String, subscribed: Bool) throws
                -> BeamsInterestChange
            { throw Failure() }
            func publishToInterests(appIDs: [AppID], interests: [String], message: OutboxMessage, firstStep: Int)
                throws -> QueuedFanOut
            { QueuedFanOut(queued: 0, continues: false) }
        }
        let api = RouteGroup(errors: BeamsErrors(), BeamsClientAPI(store: Broken(), identifiers: identifiers).routes)
        let response = api.handle(json("POST", "/client_api/v1/clients", #"{"app_key":"k","platform_type":"apns","token":"\#(token)"}"#))
        XCTAssertEqual(response.status, 500)
        XCTAssertEqual(
            body(response), .object(["error": .string("Something went wrong"), "description": .string("Internal server error.")]))
        XCTAssertNotNil(response.logNote)
    }
}
