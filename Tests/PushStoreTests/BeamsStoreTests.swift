import Foundation
import PushCore
import XCTest

@testable import PushStore

final class BeamsStoreTests: StoreTestCase {
    var store: (any StoreUnderTest)!
    let app = Fixture.apnsAppID

    override func setUpWithError() throws {
        try super.setUpWithError()
        store = try makeStore()
        var registered = Fixture.apnsApp
        registered.appKey = "ios-key"
        try store.addApp(registered, replacing: false)
        try store.addApp(Fixture.fcmApp, replacing: false)
    }

    func add(_ id: String, seed: UInt8) throws {
        let token = Fixture.apnsToken(seed)
        try store.addBeamsClient(id: id, appID: app, token: token, reportedToken: token.hex)
    }

    /// Clients c1 … c`count` subscribed to "a", and a publish to "a" ("{}") whose own step
    /// queues the first two: the rest is left for the worker's steps.
    func publishToSubscribers(_ count: Int) throws {
        for number in 1...count {
            try add("c\(number)", seed: UInt8(number))
            XCTAssertEqual(
                try store.setBeamsInterest(clientID: "c\(number)", appKey: "ios-key", interest: "a", subscribed: true),
                .done)
        }
        let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array("{}".utf8)))
        XCTAssertEqual(
            try store.publishToInterests(appIDs: [app], interests: ["a"], message: message, firstStep: 2),
            QueuedFanOut(queued: 2, continues: true))
    }

    func testAppsAndClientsAreFoundByKeyAndID() throws {
        XCTAssertEqual(
            try store.beamsInstance(appKey: "ios-key"),
            BeamsInstance(appKey: "ios-key", apps: [BeamsApp(id: app, platform: .apns, appKey: "ios-key")]))
        XCTAssertEqual(try store.beamsInstance(appKey: "beams-key-1")?.apps.map(\.platform), [.fcm])
        XCTAssertNil(try store.beamsInstance(appKey: "nope"))
        try add("c1", seed: 1)
        XCTAssertEqual(try store.beamsClient(id: "c1")?.app.appKey, "ios-key")
        XCTAssertNil(try store.beamsClient(id: "c2"))
    }

    func testInterestsAreCheckedAgainstTheClientsAppKeyAndIdempotent() throws {
        try add("c1", seed: 1)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: true), .done)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: true), .done)
        XCTAssertEqual(
            try store.setBeamsInterest(clientID: "c1", appKey: "beams-key-1", interest: "b", subscribed: true), .wrongAppKey)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "zz", appKey: "ios-key", interest: "a", subscribed: true), .unknownClient)
        let database = try openDatabase()
        XCTAssertEqual(try count("beams_interests", in: database), 1)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: false), .done)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: false), .done)
        XCTAssertEqual(try count("beams_interests", in: database), 0)
    }

    func testAReplacedTokenMovesTheClientAndDropsTheOwnerlessDevice() throws {
        try add("c1", seed: 1)
        try add("c2", seed: 2)
        XCTAssertTrue(try store.replaceBeamsClientToken(clientID: "c1", token: Fixture.apnsToken(3), reportedToken: "t3"))
        XCTAssertEqual(Set(try store.devices().map(\.token)), [Fixture.apnsToken(2), Fixture.apnsToken(3)])
        // Onto a token another client holds: one device, two owners.
        XCTAssertTrue(try store.replaceBeamsClientToken(clientID: "c1", token: Fixture.apnsToken(2), reportedToken: "t2"))
        let devices = try store.devices()
        XCTAssertEqual(devices.map(\.token), [Fixture.apnsToken(2)])
        XCTAssertEqual(devices.first?.owners.count, 2)
        XCTAssertFalse(try store.replaceBeamsClientToken(clientID: "nope", token: Fixture.apnsToken(4), reportedToken: "t4"))
        XCTAssertEqual(try store.devices().count, 1)
    }

    func testAPublishQueuesOneRowPerSubscribedDeviceOfTheApp() throws {
        try add("c1", seed: 1)
        try add("c2", seed: 2)
        try add("c3", seed: 2)  // same device as c2
        try add("c4", seed: 4)
        let fcmToken = DeviceToken.fromFCMText("fcm-token-1")!
        try store.addBeamsClient(id: "f1", appID: Fixture.fcmAppID, token: fcmToken, reportedToken: "fcm-token-1")
        for (client, interest, key) in [
            ("c1", "a", "ios-key"), ("c1", "b", "ios-key"), ("c2", "b", "ios-key"), ("c3", "a", "ios-key"),
            ("c4", "other", "ios-key"), ("f1", "a", "beams-key-1"),
        ] {
            XCTAssertEqual(try store.setBeamsInterest(clientID: client, appKey: key, interest: interest, subscribed: true), .done)
        }
        let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array(#"{"aps":{}}"#.utf8)))
        XCTAssertEqual(try store.publishToInterests(appIDs: [app], interests: ["a", "b"], message: message).queued, 2)
        XCTAssertEqual(try store.publishToInterests(appIDs: [app], interests: ["nobody"], message: message).queued, 0)
        // The publish nobody receives keeps no payload.
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 1)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1_000)
        XCTAssertEqual(Set(claimed.map(\.notification.token)), [Fixture.apnsToken(1), Fixture.apnsToken(2)])
        XCTAssertEqual(claimed.first?.source, "beams:publish")
        XCTAssertEqual(try store.pendingCount(), 2)
    }

    /// A publish larger than its first step: the rest is queued by later steps, each
    /// subscribed device of the app once (through two interests, and two clients on one
    /// device), and the payload stays while the fan-out is unfinished, even when every row
    /// queued so far was delivered.
    func testAPublishQueuedInStepsReachesEachDeviceOnceAndKeepsItsPayloadMeanwhile() throws {
        for number in 1...9 { try add("c\(number)", seed: UInt8(number)) }
        try add("c10", seed: 3)  // the same device as c3
        try store.addBeamsClient(
            id: "f1", appID: Fixture.fcmAppID, token: DeviceToken.fromFCMText("fcm-token-1")!,
            reportedToken: "fcm-token-1")
        var subscriptions = [("f1", "a", "beams-key-1")]
        for number in 1...10 { subscriptions.append(("c\(number)", number % 3 == 0 ? "b" : "a", "ios-key")) }
        for number in [1, 2, 3, 4] { subscriptions.append(("c\(number)", "b", "ios-key")) }
        for (client, interest, key) in subscriptions {
            XCTAssertEqual(
                try store.setBeamsInterest(clientID: client, appKey: key, interest: interest, subscribed: true), .done)
        }
        let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array(#"{"aps":{}}"#.utf8)))
        let published = try store.publishToInterests(appIDs: [app], interests: ["a", "b"], message: message, firstStep: 3)
        XCTAssertTrue(published.continues)
        XCTAssertLessThanOrEqual(published.queued, 3)
        XCTAssertEqual(try store.fanOutsInProgress(), 1)

        var delivered: [DeviceToken] = []
        func deliverAll() throws {
            let claimed = try store.claimDue(limit: 100, now: Int64.max / 2, lease: 1_000)
            delivered += claimed.map(\.notification.token)
            try store.complete(claimed.map { ($0, .delivered(id: nil)) }, now: 0)
        }
        try deliverAll()
        XCTAssertEqual(try store.deleteUnusedPayloads(), 0, "housekeeping leaves an unfinished fan-out's payload")
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 1, "so does completing every row so far")

        var queued = published.queued
        var steps = 0
        while true {
            let progress = try store.continueFanOuts(limit: 2, now: 1_000, lease: 60_000, node: "n1")
            queued += progress.claimed.count
            steps += 1
            // A step's rows come claimed: delivered and completed as a claim's.
            delivered += progress.claimed.map(\.notification.token)
            try store.complete(progress.claimed.map { ($0, .delivered(id: nil)) }, now: 0)
            try deliverAll()
            if !progress.remaining { break }
            XCTAssertLessThan(steps, 50, "the cursor moves")
        }
        XCTAssertGreaterThan(steps, 2, "in several steps")
        let expected = (1...9).map { Fixture.apnsToken(UInt8($0)) }
        XCTAssertEqual(queued, expected.count)
        XCTAssertEqual(delivered.count, expected.count, "no device twice")
        XCTAssertEqual(Set(delivered), Set(expected), "every subscribed device of the app, not the FCM client's")
        XCTAssertEqual(try store.fanOutsInProgress(), 0)
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 0, "the last step took the payload")
        XCTAssertEqual(try store.continueFanOuts(limit: 2, now: 1_000, lease: 60_000, node: "n1"), .none)
    }

    /// The worker's steps claim what they queue, as `claimDue` would: leased to the node that
    /// took the step, an attempt counted, anyone's again when the lease runs out.
    func testAStepsRowsComeClaimedByTheNodeThatTookIt() throws {
        try publishToSubscribers(5)
        XCTAssertEqual(try store.claims(), [], "the publish's own step is due for anyone")

        // The store's clock, in ms: the publish's rows are due from then.
        let now: Int64 = 1_700_000_000_000
        let step = try store.continueFanOuts(limit: 10, now: now, lease: 60_000, node: "n1")
        XCTAssertFalse(step.remaining)
        XCTAssertEqual(step.claimed.map(\.attempts), [1, 1, 1])
        XCTAssertEqual(
            Set(step.claimed.map(\.notification.token)), Set((3...5).map { Fixture.apnsToken(UInt8($0)) }),
            "the subscriptions after the publish's step")
        XCTAssertTrue(step.claimed.allSatisfy { $0.notification.apns?.payload == Array("{}".utf8) })
        XCTAssertEqual(try store.claims(), [OutboxClaim(node: "n1", rows: 3, leasedUntil: now + 60_000)])
        XCTAssertEqual(try store.pendingCount(), 5)

        // Another node's claim takes the publish's two rows, none of the leased three…
        let other = try store.claimDue(limit: 10, now: now, lease: 120_000, node: "n2")
        XCTAssertEqual(Set(other.map(\.notification.token)), Set((1...2).map { Fixture.apnsToken(UInt8($0)) }))
        // …until n1's lease runs out (n1 died): then they are anyone's, their attempt counted.
        let afterLease = try store.claimDue(limit: 10, now: now + 60_000, lease: 60_000, node: "n2")
        XCTAssertEqual(afterLease.map(\.id).sorted(), step.claimed.map(\.id).sorted())
        XCTAssertEqual(afterLease.map(\.attempts), [2, 2, 2])
    }

    /// The cursor is the store's: a store opened afresh (a restarted node) goes on where the
    /// last committed step left off.
    func testAFanOutGoesOnFromItsCursorInAnotherStore() throws {
        try publishToSubscribers(6)
        let restarted = try makeStore()
        let first = try restarted.continueFanOuts(limit: 3, now: 1_000, lease: 60_000, node: "n1")
        XCTAssertEqual(first.claimed.count, 3)
        XCTAssertTrue(first.remaining)
        let last = try restarted.continueFanOuts(limit: 3, now: 1_000, lease: 60_000, node: "n1")
        XCTAssertEqual(last.claimed.count, 1)
        XCTAssertFalse(last.remaining)
        XCTAssertEqual(try restarted.pendingCount(), 6)
    }

    func testAPrunedDeviceTakesItsClientsAndInterests() throws {
        try add("c1", seed: 1)
        XCTAssertEqual(try store.setBeamsInterest(clientID: "c1", appKey: "ios-key", interest: "a", subscribed: true), .done)
        let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array("{}".utf8)))
        XCTAssertEqual(try store.publishToInterests(appIDs: [app], interests: ["a"], message: message).queued, 1)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1_000)
        try store.complete([(claimed[0], .deadToken(reason: "Unregistered", since: nil))], now: 0)
        XCTAssertNil(try store.beamsClient(id: "c1"))
        let database = try openDatabase()
        XCTAssertEqual(try count("beams_interests", in: database), 0)
        XCTAssertEqual(try count("devices", in: database), 0)
    }

    // MARK: One key, an APNs app and an FCM app

    /// The fixture's FCM app, moved behind the APNs app's key.
    func shareTheKey() throws {
        var android = Fixture.fcmApp
        android.appKey = "ios-key"
        try store.addApp(android, replacing: true)
    }

    func testOneKeyServesAnAPNsAndAnFCMApp() throws {
        try shareTheKey()
        let instance = try XCTUnwrap(try store.beamsInstance(appKey: "ios-key"))
        XCTAssertEqual(instance.apps.map(\.id), [app, Fixture.fcmAppID])
        XCTAssertEqual(instance.app(for: .fcm)?.id, Fixture.fcmAppID)
        XCTAssertNil(try store.beamsInstance(appKey: "beams-key-1"), "the FCM app's old key is gone")
        XCTAssertEqual(try store.app(id: Fixture.fcmAppID)?.appKey, "ios-key")
        XCTAssertEqual(try store.apps().map(\.appKey), ["ios-key", "ios-key"])
        // Each client's app key is the instance's, whichever app it belongs to.
        try store.addBeamsClient(
            id: "f1", appID: Fixture.fcmAppID, token: DeviceToken.fromFCMText("iid:APA91b_1")!, reportedToken: "iid:APA91b_1")
        XCTAssertEqual(try store.beamsClient(id: "f1")?.app, BeamsApp(id: Fixture.fcmAppID, platform: .fcm, appKey: "ios-key"))
        XCTAssertEqual(try store.setBeamsInterest(clientID: "f1", appKey: "ios-key", interest: "a", subscribed: true), .done)
    }

    func testASecondAppOfAPlatformUnderAKeyIsRefusedAndNothingIsWritten() throws {
        let other = RegisteredApp(
            id: AppID("com.example.other")!, credentials: Fixture.apnsApp.credentials, apnsTopic: "com.example.other",
            appKey: "ios-key")
        XCTAssertThrowsError(try store.addApp(other, replacing: false)) { error in
            XCTAssertEqual(error as? AppCatalogError, .appKeyTaken(appKey: "ios-key", platform: .apns, holder: app))
            XCTAssertTrue("\(error)".contains("app key ios-key already has an apns app, com.example.phone"), "\(error)")
        }
        XCTAssertNil(try store.app(id: other.id))
        // The same through a replace: the FCM app turned into an APNs app under the key.
        var turned = Fixture.fcmApp
        turned.credentials = Fixture.apnsApp.credentials
        turned.appKey = "ios-key"
        XCTAssertThrowsError(try store.addApp(turned, replacing: true))
        XCTAssertEqual(try store.app(id: Fixture.fcmAppID)?.platform, .fcm)
        XCTAssertEqual(try store.beamsInstance(appKey: "beams-key-1")?.apps.map(\.id), [Fixture.fcmAppID])
        // Re-adding an app with its own key is no conflict.
        var again = Fixture.apnsApp
        again.appKey = "ios-key"
        XCTAssertNoThrow(try store.addApp(again, replacing: true))
    }

    func testAKeyFollowsItsAppThroughReplaceAndRemove() throws {
        try shareTheKey()
        var ios = Fixture.apnsApp
        ios.appKey = nil
        try store.addApp(ios, replacing: true)
        XCTAssertEqual(try store.beamsInstance(appKey: "ios-key")?.apps.map(\.id), [Fixture.fcmAppID])
        XCTAssertEqual(try store.removeApp(id: Fixture.fcmAppID), true)
        XCTAssertNil(try store.beamsInstance(appKey: "ios-key"))
        XCTAssertEqual(try count("beams_instances", in: try openDatabase()), 0)
        // Once free, the key takes another app of the platform.
        ios.appKey = "beams-key-1"
        try store.addApp(ios, replacing: true)
        XCTAssertEqual(try store.beamsInstance(appKey: "beams-key-1")?.apps.map(\.id), [app])
    }

    func testAPublishToBothAppsQueuesEachSubscribedDeviceOnce() throws {
        try shareTheKey()
        try add("c1", seed: 1)
        try add("c2", seed: 1)  // the same iPhone again
        try add("c3", seed: 3)
        let fcmToken = DeviceToken.fromFCMText("iid:APA91b_1")!
        try store.addBeamsClient(id: "f1", appID: Fixture.fcmAppID, token: fcmToken, reportedToken: "iid:APA91b_1")
        try store.addBeamsClient(id: "f2", appID: Fixture.fcmAppID, token: fcmToken, reportedToken: "iid:APA91b_1")
        for (client, interest) in [("c1", "a"), ("c2", "b"), ("c3", "other"), ("f1", "a"), ("f2", "b")] {
            XCTAssertEqual(try store.setBeamsInterest(clientID: client, appKey: "ios-key", interest: interest, subscribed: true), .done)
        }
        let message = OutboxMessage(
            source: "beams:publish", apns: APNsMessage(payload: Array(#"{"aps":{}}"#.utf8)),
            fcm: FCMMessage(fields: ["data": .object(["k": .string("v")])]))
        XCTAssertEqual(try store.publishToInterests(appIDs: [app, Fixture.fcmAppID], interests: ["a", "b"], message: message).queued, 2)
        let claimed = try store.claimDue(limit: 10, now: Int64.max / 2, lease: 1_000)
        XCTAssertEqual(Set(claimed.map(\.notification.token)), [Fixture.apnsToken(1), fcmToken])
        // Only the apps named: an FCM-only publish leaves the iPhones out.
        XCTAssertEqual(try store.publishToInterests(appIDs: [Fixture.fcmAppID], interests: ["a", "b", "other"], message: message).queued, 1)
        XCTAssertEqual(try store.publishToInterests(appIDs: [], interests: ["a"], message: message).queued, 0)
    }
}

/// 0004 moves each app's Beams key into `beams_instances` and keeps every device, client and
/// interest.
final class BeamsInstancesMigrationTests: StoreTestCase {
    func testKeysMoveToTheInstancesTableAndNothingElseChanges() throws {
        try requireSQLite("the schema as 0003 left it is built from SQLite's files and literals")
        // The schema as 0003 left it, with a Beams app, a client, its device and interests.
        let before = directory.appendingPathComponent("sql-0003", isDirectory: true)
        try FileManager.default.createDirectory(at: before, withIntermediateDirectories: true)
        for name in ["0001_initial.sql", "0002_outbox.sql", "0003_provider_tokens.sql"] {
            try FileManager.default.copyItem(
                at: Self.sqlDirectory.appendingPathComponent(name), to: before.appendingPathComponent(name))
        }
        let database = try openSQLiteDatabase()
        try Migrator.migrate(database: database, directory: before)
        try database.execute(
            """
            INSERT INTO apps (id, platform, apns_team_id, apns_key_id, apns_private_key_pem, app_key, created_at, updated_at)
            VALUES ('com.example.ios', 'apns', 'TEAM123456', 'KEY1234567', 'pem', 'ios-key', 1, 1);
            INSERT INTO apps (id, platform, fcm_service_account_json, fcm_project_id, app_key, created_at, updated_at)
            VALUES ('com.example.android', 'fcm', '{}', 'p', 'android-key', 1, 1);
            INSERT INTO apps (id, platform, fcm_service_account_json, fcm_project_id, created_at, updated_at)
            VALUES ('com.example.nokey', 'fcm', '{}', 'p', 1, 1);
            INSERT INTO devices (id, app_id, token, reported_token, platform, created_at, updated_at)
            VALUES (1, 'com.example.ios', x'0101', '0101', 'apns', 1, 1),
                   (2, 'com.example.android', CAST('iid:APA91b' AS BLOB), 'iid:APA91b', 'fcm', 1, 1);
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
            VALUES ('c1', 'com.example.ios', 1, 1, 1), ('c2', 'com.example.android', 2, 1, 1);
            INSERT INTO beams_interests (client_id, interest) VALUES ('c1', 'a'), ('c1', 'b'), ('c2', 'a');
            """)
        let applied = try Migrator.migrate(database: database, directory: Self.sqlDirectory)
        XCTAssertEqual(applied.first, "0004_beams_instances.sql", "0004 next (later migrations follow it)")

        let instances = try database.withStatement(
            "SELECT app_key, platform, app_id FROM beams_instances ORDER BY app_key"
        ) { row in
            var rows: [[String]] = []
            while try row.step() { rows.append((0..<3).map { row.string(Int32($0)) ?? "NULL" }) }
            return rows
        }
        XCTAssertEqual(
            instances, [["android-key", "fcm", "com.example.android"], ["ios-key", "apns", "com.example.ios"]])
        // 0011 drops the emptied column altogether.
        let keyColumns = try database.withStatement("SELECT count(*) FROM pragma_table_info('apps') WHERE name = 'app_key'") { row in
            _ = try row.step()
            return row.int64(0)
        }
        XCTAssertEqual(keyColumns, 0)
        XCTAssertEqual(try count("apps", in: database), 3)
        XCTAssertEqual(try count("devices", in: database), 2)
        XCTAssertEqual(try count("beams_clients", in: database), 2)
        XCTAssertEqual(try count("beams_interests", in: database), 3)

        // The store reads the moved keys, and the old one-key-per-platform installation can
        // now put both apps behind one key.
        let store = try makeStore()
        XCTAssertEqual(try store.beamsClient(id: "c1")?.app.appKey, "ios-key")
        XCTAssertEqual(try store.beamsInstance(appKey: "android-key")?.apps.map(\.id.rawValue), ["com.example.android"])
        var android = try XCTUnwrap(try store.app(id: AppID("com.example.android")!))
        android.appKey = "ios-key"
        try store.addApp(android, replacing: true)
        XCTAssertEqual(
            try store.beamsInstance(appKey: "ios-key")?.apps.map(\.id.rawValue), ["com.example.ios", "com.example.android"])
        XCTAssertEqual(try store.beamsClient(id: "c2")?.app.appKey, "ios-key")
        XCTAssertEqual(try count("beams_interests", in: database), 3)
    }
}
