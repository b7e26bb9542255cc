import Foundation
import PushAPI
import PushCore
import PushTesting
import XCTest

/// The Beams client and publish APIs in-process, over an in-memory store.
final class BeamsTests: XCTestCase {
    /// Clients, devices and interests in dictionaries; publishes recorded instead of queued.
    final class FakeBeamsStore: BeamsStore, @unchecked Sendable {
        var apps: [String: BeamsApp] = [:]
        var clients: [String: (app: BeamsApp, token: DeviceToken)] = [:]
        var interests: [String: Set<String>] = [:]
        var published: [(appID: AppID, interests: [String], message: OutboxMessage)] = []

        func beamsApp(appKey: String) throws -> BeamsApp? { apps[appKey] }
        func beamsClient(id: String) throws -> BeamsClient? { clients[id].map { BeamsClient(id: id, app: $0.app) } }
        func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws {
            let app = try XCTUnwrap(apps.values.first { $0.id == appID })
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
        func publishToInterests(appID: AppID, interests wanted: [String], message: OutboxMessage) throws -> Int {
            published.append((appID, wanted, message))
            let devices = Set(
                clients.filter { id, client in
                    client.app.id == appID && !(interests[id] ?? []).isDisjoint(with: wanted)
                }.map(\.value.token))
            return devices.count
        }
    }


    let store = FakeBeamsStore()
    let ios = BeamsApp(id: AppID("com.example.ios")!, platform: .apns, appKey: "key-ios")
    let token = String(repeating: "ab", count: 32)
    /// Counts up, so that ids are predictable and distinct.
    let counter = Counter()

    final class Counter: @unchecked Sendable {
        var value: UInt8 = 0
        var wakes = 0
    }

    override func setUp() {
        store.apps = [ios.appKey: ios]
    }

    var identifiers: RandomIdentifier {
        RandomIdentifier(randomBytes: { [counter] count in
            counter.value += 1
            return [UInt8](repeating: counter.value, count: count)
        })
    }

    var clientAPI: BeamsClientAPI { BeamsClientAPI(store: store, identifiers: identifiers) }

    var publishAPI: BeamsPublishAPI {
        BeamsPublishAPI(
            store: store, senders: SenderAuthorization(keys: InMemorySenderKeys(), digest: { $0 }), identifiers: identifiers,
            wakeOutbox: { [counter] in counter.wakes += 1 })
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
        for name in ["private-x", String(repeating: "x", count: 165), "a:b", "a%2Fb", "%C3%A9", "a*", "a%zz", "a%2"] {
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
                #"{"interests":["a","b-c"],"apns":{"aps":{"alert":"Hi!"}},"fcm":{"notification":{"title":"t"}},"web":{}}"#))
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
        XCTAssertEqual(body(response), .object(["publishId": .string("pubid-01010101-0101-4101-8101-010101010101")]))
        let published = try XCTUnwrap(store.published.first)
        XCTAssertEqual(published.appID, ios.id)
        XCTAssertEqual(published.interests, ["a", "b-c"])
        XCTAssertEqual(published.message.source, "beams:publish")
        XCTAssertEqual(published.message.apns?.payload, Array(#"{"aps":{"alert":"Hi!"}}"#.utf8))
        XCTAssertEqual(published.message.fcm?.fields, ["notification": .object(["title": .string("t")])])
        XCTAssertEqual(counter.wakes, 0, "nobody subscribed: nothing to wake the outbox for")
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
            func beamsApp(appKey: String) throws -> BeamsApp? { throw Failure() }
            func beamsClient(id: String) throws -> BeamsClient? { throw Failure() }
            func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws {}
            func replaceBeamsClientToken(clientID: String, token: DeviceToken, reportedToken: String) throws -> Bool { false }
            func setBeamsInterest(clientID: String, appKey: String, interest: String, subscribed: Bool) throws
                -> BeamsInterestChange
            { throw Failure() }
            func publishToInterests(appID: AppID, interests: [String], message: OutboxMessage) throws -> Int { 0 }
        }
        let api = BeamsClientAPI(store: Broken(), identifiers: identifiers)
        let response = api.handle(json("POST", "/client_api/v1/clients", #"{"app_key":"k","platform_type":"apns","token":"\#(token)"}"#))
        XCTAssertEqual(response.status, 500)
        XCTAssertEqual(
            body(response), .object(["error": .string("Something went wrong"), "description": .string("Internal server error.")]))
        XCTAssertNotNil(response.logNote)
    }
}
