import Foundation
import PushCore
import PushTesting
import XCTest

@testable import PushAPI

/// cospace users and devices in memory: enough of the store for the handlers' own logic.
final class CospaceMemoryStore: CospaceUserStore, OutboxStore, @unchecked Sendable {
    var usersByName: [String: CospaceUser] = [:]
    var apnsApps: Set<String> = []
    var apns: [String: [CospaceAPNsRegistration]] = [:]
    var gcm: [String: [String]] = [:]
    var enqueued: [(OutboxMessage, [Int64])] = []
    /// The app every registration id belongs to.
    var fcmApp = AppID("cospace.fcm")!

    func addUser(name: String, passwordHash: String) throws -> CospaceUser {
        let user = CospaceUser(id: UUID().uuidString.lowercased(), name: name, passwordHash: passwordHash)
        usersByName[name] = user
        return user
    }
    func users() throws -> [CospaceUser] { Array(usersByName.values) }
    func user(named name: String) throws -> CospaceUser? { usersByName[name] }
    func user(id: String) throws -> CospaceUser? { usersByName.values.first { $0.id == id } }
    func setPasswordHash(name: String, passwordHash: String) throws -> Bool { false }
    func removeUser(name: String) throws -> Bool { usersByName.removeValue(forKey: name) != nil }
    func registrations(userID: String) throws -> CospaceRegistrations {
        CospaceRegistrations(
            registrationIDs: gcm[userID] ?? [],
            apnsTokens: (apns[userID] ?? []).map {
                CospaceAPNsToken(
                    token: $0.token, applicationID: $0.applicationID, sandbox: $0.sandbox ?? false,
                    apnsTopic: $0.apnsTopic == $0.bundleID ? nil : $0.apnsTopic)
            })
    }
    func addAPNsToken(userID: String, _ registration: CospaceAPNsRegistration) throws -> Bool {
        guard apnsApps.contains(registration.applicationID) else { return false }
        apns[userID, default: []].removeAll { $0.token == registration.token }
        apns[userID, default: []].append(registration)
        return true
    }
    func addRegistrationID(userID: String, appID: AppID, registrationID: String) throws {
        if !(gcm[userID] ?? []).contains(registrationID) { gcm[userID, default: []].append(registrationID) }
    }
    func removeAPNsToken(userID: String, token: DeviceToken) throws -> Bool {
        let before = apns[userID]?.count ?? 0
        apns[userID]?.removeAll { $0.token == token }
        return before != (apns[userID]?.count ?? 0)
    }
    func removeRegistrationID(userID: String, appID: AppID, registrationID: String) throws -> Bool {
        let before = gcm[userID]?.count ?? 0
        gcm[userID]?.removeAll { $0 == registrationID }
        return before != (gcm[userID]?.count ?? 0)
    }
    /// APNs devices first, then FCM ones, numbered from 0; an APNs device's app is its
    /// application id, an FCM one's `fcmApp`.
    func deviceIDs(userID: String, within apps: Set<AppID>?) throws -> ScopedDevices? {
        guard try user(id: userID) != nil else { return nil }
        let owned = (apns[userID] ?? []).map { AppID($0.applicationID)! } + (gcm[userID] ?? []).map { _ in fcmApp }
        let inScope = owned.indices.filter { apps?.contains(owned[$0]) ?? true }
        return ScopedDevices(inScope: inScope.map(Int64.init), leftOut: owned.count - inScope.count)
    }

    func enqueue(_ message: OutboxMessage, deviceIDs: [Int64]) throws -> Int {
        enqueued.append((message, deviceIDs))
        return deviceIDs.count
    }
    func claimDue(limit: Int, now: Int64, lease: Int64, node: String) throws -> [OutboxDelivery] { [] }
    func complete(_ outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)], now: Int64) throws {}
    func continueFanOuts(limit: Int, now: Int64, lease: Int64, node: String) throws -> FanOutProgress { .none }
    func fanOutsInProgress() throws -> Int { 0 }
    func nextDueAt() throws -> Int64? { nil }
    func releaseClaims(heldBy node: String?) throws -> Int { 0 }
    func claims() throws -> [OutboxClaim] { [] }
    func pendingCount() throws -> Int { enqueued.count }
    func deadLetters(limit: Int) throws -> [OutboxDeadLetter] { [] }
    func retryDeadLetters() throws -> Int { 0 }
    func deliveryLog(limit: Int) throws -> [DeliveryLogEntry] { [] }
    func trimDeliveryLog(keeping: Int) throws -> Int { 0 }
    func deleteUnusedPayloads() throws -> Int { 0 }
}

final class CospaceTests: XCTestCase {
    let store = CospaceMemoryStore()
    var handler: RouteGroup {
        let registrations = PushRegistrations(
            users: store,
            authenticator: CospaceAuthenticator(users: store) { _, password, stored in password == stored },
            senderID: "4815162342", fcmApp: AppID("fcm.app"))
        return RouteGroup(errors: CospaceErrors(), registrations.routes)
    }

    func request(_ method: String = "POST", body: String = "", user: String = "alice", password: String = "pw")
        -> Request
    {
        Request(
            method: method, path: "/api/push",
            headers: [
                "content-type": "application/json",
                "authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString(),
            ], body: Array(body.utf8))
    }

    override func setUpWithError() throws {
        _ = try store.addUser(name: "alice", passwordHash: "pw")
        store.apnsApps = ["39JSDKGJ38.de.cospace.app"]
    }

    func testApplicationIDAndTopicRules() {
        XCTAssertTrue(PushChange.isApplicationID("39JSDKGJ38.de.cospace.app"))
        XCTAssertTrue(PushChange.isApplicationID("39JSDKGJ38.a.b-c"))
        XCTAssertFalse(PushChange.isApplicationID("39JSDKGJ38.abcd"))
        XCTAssertFalse(PushChange.isApplicationID("39JSDKGJ3-.de.cospace.app"))
        XCTAssertFalse(PushChange.isApplicationID("39JSDKGJ38xde.cospace.app"))
        XCTAssertFalse(PushChange.isApplicationID("39JSDKGJ38.de_cospace.app"))
        XCTAssertFalse(PushChange.isApplicationID("39JSDKGJ38." + String(repeating: "a", count: 101)))
        XCTAssertTrue(PushChange.isTopic(String(repeating: "a", count: 100)))
        XCTAssertFalse(PushChange.isTopic("de.cospace.app.ü"))
    }

    func testRegistrationIDsRefuseEveryControlCharacter() throws {
        func change(_ id: String) throws -> PushChange {
            try PushChange(["system": .string("gcm"), "action": .string("add"), "registration_id": .string(id)])
        }
        XCTAssertEqual(try change("dTk3:APA91b-x_y"), .addRegistrationID("dTk3:APA91b-x_y"))
        XCTAssertEqual(try change("registration id with spaces é"), .addRegistrationID("registration id with spaces é"))
        for control in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1B, 0x1F, 0x7F, 0x80, 0x85, 0x9F] {
            let id = "APA91bHun4" + String(Character(Unicode.Scalar(UInt8(control)))) + "MxP5e"
            XCTAssertThrowsError(try change(id), "U+\(String(control, radix: 16))") { error in
                XCTAssertEqual(error as? CospaceError, .invalid("invalid-registration-id"))
            }
        }
        // The space and the no-break space after C1 are not control characters.
        XCTAssertEqual(try change("APA91b Hun4\u{A0}MxP5e"), .addRegistrationID("APA91b Hun4\u{A0}MxP5e"))
    }

    func testAnAPNsAddDefaultsTheTopicToTheBundleID() throws {
        let change = try PushChange([
            "system": .string("apns"), "action": .string("add"),
            "device_token": .string(String(repeating: "A", count: 64)),
            "application_id": .string("39JSDKGJ38.de.cospace.app"),
        ])
        guard case .addAPNsToken(let registration) = change else { return XCTFail("\(change)") }
        XCTAssertEqual(registration.apnsTopic, "de.cospace.app")
        XCTAssertNil(registration.sandbox)
        XCTAssertEqual(registration.token.bytes, Array(repeating: 0xAA, count: 32))
    }

    func testUnknownAppIDAndGCMWithoutConfiguration() throws {
        let token = String(repeating: "a", count: 64)
        let unknown = handler.handle(
            request(
                body:
                    #"{"system":"apns","action":"add","device_token":"\#(token)","application_id":"39JSDKGJ38.de.other.app"}"#
            ))
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(String(decoding: unknown.body, as: UTF8.self), #"{"status":"unknown-appid"}"#)
        let unconfigured = RouteGroup(
            errors: CospaceErrors(),
            PushRegistrations(
                users: store, authenticator: CospaceAuthenticator(users: store) { _, p, s in p == s }, senderID: nil,
                fcmApp: nil
            ).routes)
        let gcm = unconfigured.handle(request(body: #"{"system":"gcm","action":"add","registration_id":"1234567890"}"#))
        XCTAssertEqual(gcm.status, 500)
        XCTAssertEqual(String(decoding: gcm.body, as: UTF8.self), #"{"status":"gcm-not-configured"}"#)
        XCTAssertEqual(store.gcm.count, 0)
        let listing = unconfigured.handle(request("GET"))
        XCTAssertEqual(
            String(decoding: listing.body, as: UTF8.self),
            #"{"apns":{"device_tokens":{}},"gcm":{"registration_ids":[],"sender_id":null}}"#)
    }

    func testUnknownUsersAreCheckedAgainstTheDummyHash() {
        final class Seen: @unchecked Sendable { var hashes: [String] = [] }
        let seen = Seen()
        let authenticator = CospaceAuthenticator(users: store) { _, _, stored in
            seen.hashes.append(stored)
            return false
        }
        XCTAssertThrowsError(try authenticator.authenticate(request(user: "mallory")))
        XCTAssertEqual(seen.hashes, [CospaceAuthenticator.unknownUserHash])
    }

    func testTheEventPayloadsKeepTheDocumentsTypesAndOrder() throws {
        let event = try CospaceEvent(
            owner: "9aed5e94-3803-11e3-8475-0024e8f90cc0", message: "fax_new",
            fields: ["fax": "af729cc0-3251-11e2-81c1-0800200c9a66", "phone": "+492215587412", "page_count": "2"])
        XCTAssertEqual(
            String(decoding: event.apnsPayload, as: UTF8.self),
            #"{"aps":{"content-available":1},"owner":"9aed5e94-3803-11e3-8475-0024e8f90cc0","message":"fax_new","fax":"af729cc0-3251-11e2-81c1-0800200c9a66","phone":"+492215587412","page_count":2}"#
        )
        XCTAssertEqual(event.fcmData["page_count"], .string("2"))
        let message = event.outboxMessage
        XCTAssertEqual(message.apns?.pushType, .background)
        XCTAssertEqual(message.apns?.priority, 5)
        XCTAssertEqual(message.source, "cospace:event")
        XCTAssertEqual(message.fcm?.fields["data"]?.objectValue?.count, 5)
        // Quotes and control characters are escaped in the hand-ordered APNs JSON.
        let chat = try CospaceEvent(
            owner: "9aed5e94-3803-11e3-8475-0024e8f90cc0", message: "chat_message",
            fields: [
                "chat": "c", "uuid": "u", "time": "-5", "user": "u", "user_name": "A \"B\"", "type": "text",
                "text": "a\nb/é",
            ])
        let parsed = try JSONValue.parse(chat.apnsPayload)
        XCTAssertEqual(parsed.objectValue?["user_name"], .string("A \"B\""))
        XCTAssertEqual(parsed.objectValue?["text"], .string("a\nb/é"))
        XCTAssertEqual(parsed.objectValue?["time"], .number(-5))
        XCTAssertThrowsError(
            try CospaceEvent(
                owner: "9aed5e94-3803-11e3-8475-0024e8f90cc0", message: "fax_new",
                fields: ["fax": "f", "phone": "p", "page_count": "1e3"]))
    }

    func testEventsAreForbiddenToRemoteCallersWithoutKeys() {
        let events = RouteGroup(
            errors: CospaceErrors(),
            SenderOnly(
                PushEvents(publisher: CospaceEventPublisher(users: store, outbox: store)),
                senders: SenderAuthorization(keys: InMemorySenderKeys(), digest: { $0 })
            ).routes)
        let body =
            #"{"owner":"\#(store.usersByName["alice"]!.id)","message":"recording_new","recording":"r","phone":"p"}"#
        let remote = Request(
            method: "POST", path: "/api/push/events", headers: ["content-type": "application/json"],
            body: Array(body.utf8),
            remoteAddress: "192.0.2.1")
        let response = events.handle(remote)
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"status":"forbidden"}"#)
        XCTAssertTrue(store.enqueued.isEmpty)
        var local = remote
        local.remoteAddress = "127.0.0.1"
        XCTAssertEqual(events.handle(local).status, 200)
        XCTAssertEqual(store.enqueued.count, 1)
    }
}
