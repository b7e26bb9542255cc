import Foundation
import PushCore
import XCTest

@testable import PushStore

final class AppCatalogTests: StoreTestCase {
    func testAddsAndReadsBackEveryKindOfApp() throws {
        let store = try makeStore()
        let certificateApp = RegisteredApp(
            id: AppID("com.example.voip")!,
            credentials: .apnsCertificate(certificatePEM: "CERT", privateKeyPEM: "KEY"),
            apnsTopic: "com.example.voip.voip",
            apnsPushType: .voip)
        for app in [Fixture.fcmApp, certificateApp, Fixture.apnsApp] {
            try store.addApp(app, replacing: false)
        }
        XCTAssertEqual(try store.app(id: Fixture.apnsAppID), Fixture.apnsApp)
        XCTAssertEqual(try store.app(id: Fixture.fcmAppID), Fixture.fcmApp)
        XCTAssertEqual(try store.platform(of: Fixture.apnsAppID), .apns)
        XCTAssertEqual(try store.platform(of: Fixture.fcmAppID), .fcm)
        XCTAssertNil(try store.platform(of: AppID("not.registered")!))
        XCTAssertNil(try store.app(id: AppID("unknown")!))
        XCTAssertEqual(try store.apps(), [Fixture.fcmApp, Fixture.apnsApp, certificateApp], "ordered by id")
    }

    func testAWebAppKeepsItsVAPIDKeyAndSubjectAndItsBeamsInstance() throws {
        let store = try makeStore()
        let web = RegisteredApp(
            id: AppID("com.example.web")!,
            credentials: .webPush(vapidPrivateKeyPEM: "PEM", subject: "mailto:ops@example.com"),
            appKey: Fixture.fcmApp.appKey)
        try store.addApp(Fixture.fcmApp, replacing: false)
        try store.addApp(web, replacing: false)
        XCTAssertEqual(try store.app(id: web.id), web)
        XCTAssertEqual(try store.platform(of: web.id), .web)
        XCTAssertEqual(try store.app(id: Fixture.fcmAppID)?.appKey, web.appKey, "a web app shares the instance")
        var replaced = web
        replaced.credentials = .webPush(vapidPrivateKeyPEM: "PEM2", subject: "https://example.com/contact")
        try store.addApp(replaced, replacing: true)
        XCTAssertEqual(try store.app(id: web.id), replaced)
    }

    func testRefusesADuplicateUnlessReplacing() throws {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: false)
        var changed = Fixture.apnsApp
        changed.apnsTopic = "com.example.other"
        changed.credentials = .apnsCertificate(certificatePEM: "CERT", privateKeyPEM: "KEY")
        XCTAssertThrowsError(try store.addApp(changed, replacing: false)) { error in
            XCTAssertEqual(error as? AppCatalogError, .duplicateApp(Fixture.apnsAppID))
        }
        XCTAssertEqual(try store.app(id: Fixture.apnsAppID), Fixture.apnsApp)

        try store.addApp(changed, replacing: true)
        XCTAssertEqual(try store.app(id: Fixture.apnsAppID), changed, "the old token credential is gone")
        XCTAssertEqual(try store.apps().count, 1)
    }

    func testABeamsAppKeyTakesOneAppPerPlatform() throws {
        let store = try makeStore()
        try store.addApp(Fixture.fcmApp, replacing: false)
        var apns = Fixture.apnsApp
        apns.appKey = Fixture.fcmApp.appKey
        try store.addApp(apns, replacing: false)
        XCTAssertEqual(try store.app(id: Fixture.apnsAppID)?.appKey, "beams-key-1")
        var secondFCM = Fixture.fcmApp
        secondFCM.id = AppID("com.example.android2")!
        XCTAssertThrowsError(try store.addApp(secondFCM, replacing: false)) { error in
            XCTAssertEqual(
                error as? AppCatalogError, .appKeyTaken(appKey: "beams-key-1", platform: .fcm, holder: Fixture.fcmAppID))
        }
        XCTAssertNil(try store.app(id: secondFCM.id))
    }

    func testDevicesReportedBeforeTheAppGetItsPlatformWhenItIsAdded() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])
        XCTAssertEqual(try store.devices().map(\.platform), [nil])

        try store.addApp(Fixture.apnsApp, replacing: false)
        XCTAssertEqual(try store.devices().map(\.platform), [.apns])

        // Devices reported once the app is known get it at once.
        try store.saveAccountTokens(
            selector: "bob", username: nil, tokens: [Fixture.channelToken(.calls, seed: 2)])
        XCTAssertEqual(try store.devices().map(\.platform), [.apns, .apns])
    }

    func testRemovingAnAppKeepsItsDevices() throws {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: false)
        try store.saveAccountTokens(
            selector: "alice", username: nil, tokens: [Fixture.channelToken(.calls, seed: 1)])

        XCTAssertTrue(try store.removeApp(id: Fixture.apnsAppID))
        XCTAssertFalse(try store.removeApp(id: Fixture.apnsAppID))
        XCTAssertNil(try store.app(id: Fixture.apnsAppID))
        let devices = try store.devices()
        XCTAssertEqual(devices.count, 1)
        XCTAssertNil(devices.first?.platform, "no platform while no app of that id is registered")

        try store.addApp(Fixture.apnsApp, replacing: false)
        XCTAssertEqual(try store.devices().map(\.platform), [.apns])
    }

    func testRemovingAnAppRemovesItsBeamsClientsAndTheirDevices() throws {
        let store = try makeStore()
        try store.addApp(Fixture.fcmApp, replacing: false)
        try store.saveAccountTokens(
            selector: "alice", username: nil, tokens: [Fixture.channelToken(.msgs, seed: 1, app: Fixture.fcmAppID)])
        // The Beams store does not exist yet: link a client behind the store's back.
        let database = try openDatabase()
        try database.execute(
            """
            INSERT INTO devices (app_id, token, reported_token, created_at, updated_at)
                VALUES ('com.example.android', \(sql(sqlite: "x'0202'", postgresql: "'\\x0202'::bytea")), 'beams', 0, 0);
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
                VALUES ('client-1', 'com.example.android', \(sql(sqlite: "last_insert_rowid()", postgresql: "lastval()")), 0, 0);
            INSERT INTO beams_interests (client_id, interest) VALUES ('client-1', 'news');
            """)
        XCTAssertEqual(try store.devices().count, 2)

        XCTAssertTrue(try store.removeApp(id: Fixture.fcmAppID))
        XCTAssertEqual(try store.devices().map(\.token), [Fixture.apnsToken(1)], "the Acrobits device stays")
        XCTAssertEqual(try count("beams_clients", in: database), 0)
        XCTAssertEqual(try count("beams_interests", in: database), 0)
    }
}
