import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The outbox as the store keeps it: enqueue, claim with leases, complete, dead letters.
final class OutboxStoreTests: OutboxTestCase {
    func testEnqueueStoresThePayloadOnceAndOneRowPerExistingDevice() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 3)
        let queued = try store.enqueue(Outbox.message, deviceIDs: ids + [ids[0], 9_999])
        XCTAssertEqual(queued, 3, "a device twice is queued once; an unknown device is skipped")

        let database = try openDatabase()
        XCTAssertEqual(try count("outbox_payloads", in: database), 1)
        XCTAssertEqual(try count("outbox", in: database), 3)
        XCTAssertEqual(try store.pendingCount(), 3)
        XCTAssertEqual(try store.nextDueAt(), Outbox.storeNow, "due at once")

        XCTAssertEqual(try store.enqueue(Outbox.message, deviceIDs: []), 0)
        XCTAssertEqual(try store.enqueue(Outbox.message, deviceIDs: [9_999]), 0)
        XCTAssertEqual(try count("outbox_payloads", in: database), 1, "a payload nobody receives is not kept")
    }

    func testAMessageWithNeitherHalfIsRefused() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        XCTAssertThrowsError(try store.enqueue(OutboxMessage(source: "test"), deviceIDs: ids)) { error in
            XCTAssertTrue(isConstraintViolation(error), "\(error)")
        }
        XCTAssertEqual(try store.pendingCount(), 0)
    }

    func testAWebPushHalfReadsBackAsStored() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        let web = WebPushMessage(payload: [0, 1, 2, 0xFF], ttl: 3_600, urgency: .veryLow, topic: "call-42")
        _ = try store.enqueue(OutboxMessage(source: "beams:publish", web: web), deviceIDs: ids)
        _ = try store.enqueue(OutboxMessage(source: "beams:publish", web: WebPushMessage(payload: [], ttl: 0)), deviceIDs: ids)
        let claimed = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        XCTAssertEqual(claimed.map(\.notification.web), [web, WebPushMessage(payload: [], ttl: 0)])
        XCTAssertNil(claimed[0].notification.apns)
        XCTAssertNil(claimed[0].notification.fcm)
    }

    func testAClaimCarriesAReadyNotification() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        let database = try openDatabase()
        // The first device has its own environment and APNs topic (as cospace registers).
        try database.execute("UPDATE devices SET sandbox = 1, apns_topic = 'com.example.own' WHERE id = \(ids[0])")
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)

        let claimed = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        XCTAssertEqual(claimed.map(\.notification.deviceID), ids)
        XCTAssertEqual(claimed.map(\.attempts), [1, 1])
        XCTAssertEqual(claimed.map(\.source), ["beams:publish", "beams:publish"])
        let first = claimed[0].notification
        XCTAssertEqual(first.appID, Fixture.apnsAppID)
        XCTAssertEqual(first.token, Fixture.apnsToken(1))
        XCTAssertEqual(first.sandbox, true)
        XCTAssertEqual(first.apns?.topic, "com.example.own", "the device's topic when the publish names none")
        XCTAssertEqual(first.apns?.payload, Outbox.message.apns?.payload)
        XCTAssertEqual(first.apns?.pushType, .alert)
        XCTAssertEqual(first.apns?.priority, 10)
        XCTAssertEqual(first.apns?.collapseID, "c1")
        XCTAssertEqual(first.fcm, Outbox.message.fcm, "the FCM half reads back as stored")
        XCTAssertNil(claimed[1].notification.sandbox, "NULL: the app's default")
        XCTAssertNil(claimed[1].notification.apns?.topic)

        // A topic the publish named wins over the device's.
        var message = Outbox.message
        message.apns?.topic = "com.example.publish"
        _ = try store.enqueue(message, deviceIDs: [ids[0]])
        XCTAssertEqual(
            try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000).map(\.notification.apns?.topic),
            ["com.example.publish"])
    }

    func testAClaimTakesDueRowsOldestFirstUpToTheLimit() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 5)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        XCTAssertEqual(
            try store.claimDue(limit: 2, now: Outbox.storeNow, lease: 30_000).map(\.notification.deviceID),
            Array(ids[0..<2]))
        XCTAssertEqual(
            try store.claimDue(limit: 2, now: Outbox.storeNow, lease: 30_000).map(\.notification.deviceID),
            Array(ids[2..<4]))
        XCTAssertEqual(try store.claimDue(limit: 0, now: Outbox.storeNow, lease: 30_000), [])
        XCTAssertEqual(try store.claimDue(limit: 9, now: Outbox.storeNow - 1, lease: 30_000), [], "not due yet")
    }

    /// A worker that claims and dies (kill -9) leaves rows that come back when the lease ends.
    func testAClaimedRowComesBackWhenItsLeaseEnds() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let now = Outbox.storeNow
        XCTAssertEqual(try store.claimDue(limit: 10, now: now, lease: 30_000).count, 2)
        // The worker "crashes" here: nothing is completed.
        XCTAssertEqual(try store.claimDue(limit: 10, now: now + 29_999, lease: 30_000), [], "still leased")
        XCTAssertEqual(try store.pendingCount(), 2, "in flight rows are still pending")
        XCTAssertEqual(try store.nextDueAt(), now + 30_000)

        let again = try store.claimDue(limit: 10, now: now + 30_000, lease: 30_000)
        XCTAssertEqual(again.map(\.notification.deviceID), ids)
        XCTAssertEqual(again.map(\.attempts), [2, 2], "the lost attempt counts")
    }

    func testReleasingClaimsMakesThemDueAtOnce() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 3)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        _ = try store.claimDue(limit: 2, now: Outbox.storeNow, lease: 600_000)
        XCTAssertEqual(try store.releaseClaims(heldBy: nil), 2)
        XCTAssertEqual(try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 600_000).count, 3)
    }

    /// Every claim records its node: operators see who holds what, and a node starting again
    /// takes back its own rows at once while another live node's stay with it.
    func testAClaimRecordsItsNodeAndANodeReleasesOnlyItsOwn() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 4)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let now = Outbox.storeNow
        XCTAssertEqual(try store.claimDue(limit: 2, now: now, lease: 600_000, node: "node-a").count, 2)
        XCTAssertEqual(try store.claimDue(limit: 1, now: now, lease: 30_000, node: "node-b").count, 1)
        XCTAssertEqual(
            try store.claims(),
            [
                OutboxClaim(node: "node-a", rows: 2, leasedUntil: now + 600_000),
                OutboxClaim(node: "node-b", rows: 1, leasedUntil: now + 30_000),
            ])

        XCTAssertEqual(try store.releaseClaims(heldBy: "node-c"), 0, "a node holding nothing takes nothing")
        XCTAssertEqual(try store.releaseClaims(heldBy: "node-a"), 2)
        XCTAssertEqual(try store.claims(), [OutboxClaim(node: "node-b", rows: 1, leasedUntil: now + 30_000)])
        let taken = try store.claimDue(limit: 10, now: now, lease: 600_000, node: "node-c")
        XCTAssertEqual(taken.map(\.notification.deviceID), [ids[0], ids[1], ids[3]], "node-b's row is skipped")

        // node-b dies: its row is anyone's once the lease runs out.
        let again = try store.claimDue(limit: 10, now: now + 30_000, lease: 30_000, node: "node-a")
        XCTAssertEqual(again.map(\.notification.deviceID), [ids[2]])
        XCTAssertEqual(again.map(\.attempts), [2])
        XCTAssertEqual(
            try store.claims(),
            [
                OutboxClaim(node: "node-a", rows: 1, leasedUntil: now + 60_000),
                OutboxClaim(node: "node-c", rows: 3, leasedUntil: now + 600_000),
            ])

        // Completing a row ends its claim, whatever the outcome.
        try store.complete(
            [(taken[0], .retry(at: now + 1_000, error: "TooManyRequests")), (taken[1], .dead(error: "BadTopic")),
             (taken[2], .delivered(id: nil))],
            now: now)
        XCTAssertEqual(try store.claims().map(\.node), ["node-a"])
        XCTAssertEqual(try store.releaseClaims(heldBy: nil), 1, "nil: every node's")
        XCTAssertEqual(try store.claims(), [])
    }

    func testDeliveredRowsAreDeletedLoggedAndTheirPayloadGoesWithTheLast() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let claimed = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        let database = try openDatabase()

        try store.complete([(claimed[0], .delivered(id: "apns-1"))], now: Outbox.storeNow + 5)
        XCTAssertEqual(try count("outbox", in: database), 1)
        XCTAssertEqual(try count("outbox_payloads", in: database), 1, "still used by the other row")
        try store.complete([(claimed[1], .delivered(id: nil))], now: Outbox.storeNow + 6)
        XCTAssertEqual(try count("outbox", in: database), 0)
        XCTAssertEqual(try count("outbox_payloads", in: database), 0)
        XCTAssertEqual(try store.pendingCount(), 0)
        XCTAssertNil(try store.nextDueAt())

        XCTAssertEqual(
            try store.deliveryLog(limit: 10),
            [
                DeliveryLogEntry(
                    at: Outbox.storeNow + 6, appID: Fixture.apnsAppID.rawValue, token: Fixture.apnsToken(2).description,
                    kind: .delivered, detail: nil, source: "beams:publish"),
                DeliveryLogEntry(
                    at: Outbox.storeNow + 5, appID: Fixture.apnsAppID.rawValue, token: Fixture.apnsToken(1).description,
                    kind: .delivered, detail: "apns-1", source: "beams:publish"),
            ])
        XCTAssertFalse(try store.deliveryLog(limit: 10).contains { $0.token.count >= 64 }, "never a whole token")
    }

    func testARetryReleasesTheLeaseAndWaitsForItsTime() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let now = Outbox.storeNow
        let row = try XCTUnwrap(try store.claimDue(limit: 1, now: now, lease: 600_000).first)
        try store.complete([(row, .retry(at: now + 5_000, error: "TooManyRequests"))], now: now + 1)

        XCTAssertEqual(try store.nextDueAt(), now + 5_000, "the retry time, not the lease's end")
        XCTAssertEqual(try store.claimDue(limit: 1, now: now + 4_999, lease: 600_000), [])
        let again = try XCTUnwrap(try store.claimDue(limit: 1, now: now + 5_000, lease: 600_000).first)
        XCTAssertEqual(again.id, row.id)
        XCTAssertEqual(again.attempts, 2)
        XCTAssertEqual(try lastError(row.id), "TooManyRequests")
        XCTAssertEqual(try store.deliveryLog(limit: 1).map(\.kind), [.retry])
    }

    func testADeadLetterStaysForOperatorsUntilRetried() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let claimed = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        try store.complete(
            [(claimed[0], .dead(error: "rejected (400): BadTopic")), (claimed[1], .delivered(id: nil))],
            now: Outbox.storeNow)

        XCTAssertEqual(try store.pendingCount(), 0)
        XCTAssertNil(try store.nextDueAt(), "a dead letter is never due")
        XCTAssertEqual(try store.claimDue(limit: 10, now: .max / 2, lease: 1), [])
        let letters = try store.deadLetters(limit: 10)
        XCTAssertEqual(
            letters,
            [
                OutboxDeadLetter(
                    id: claimed[0].id, source: "beams:publish", deviceID: ids[0], appID: Fixture.apnsAppID.rawValue,
                    token: Fixture.apnsToken(1).description, attempts: 1, lastError: "rejected (400): BadTopic",
                    createdAt: Outbox.storeNow)
            ])
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 1, "the dead letter still needs it")

        XCTAssertEqual(try store.retryDeadLetters(), 1)
        XCTAssertEqual(try store.deadLetters(limit: 10), [])
        let revived = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        XCTAssertEqual(revived.map(\.id), [claimed[0].id])
        XCTAssertEqual(revived.map(\.attempts), [1], "a fresh count")
    }

    func testCompletingARowWhoseDeviceWentMeanwhileIsSkipped() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 2)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let claimed = try store.claimDue(limit: 10, now: Outbox.storeNow, lease: 30_000)
        // The account goes away while the batch is in flight: its device and row go too.
        XCTAssertEqual(try store.removeAccount(selector: "user-1"), 1)
        try store.complete(
            [(claimed[0], .delivered(id: nil)), (claimed[1], .delivered(id: nil))], now: Outbox.storeNow)
        XCTAssertEqual(try store.deliveryLog(limit: 10).count, 1)
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 0)
    }

    func testPayloadsLeftWithoutRowsAreSweptAway() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 1)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        // Another dialect deletes the device: its row cascades, the payload stays behind.
        _ = try store.removeAccount(selector: "user-0")
        let database = try openDatabase()
        XCTAssertEqual(try count("outbox", in: database), 0)
        XCTAssertEqual(try count("outbox_payloads", in: database), 1)
        XCTAssertEqual(try store.deleteUnusedPayloads(), 1)
        XCTAssertEqual(try count("outbox_payloads", in: database), 0)
    }

    func testTheDeliveryLogIsTrimmedToTheNewestEntries() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 25)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let claimed = try store.claimDue(limit: 100, now: Outbox.storeNow, lease: 30_000)
        for (index, row) in claimed.enumerated() {
            try store.complete([(row, .delivered(id: "id-\(index)"))], now: Outbox.storeNow + Int64(index))
        }
        XCTAssertEqual(try store.trimDeliveryLog(keeping: 10), 15)
        XCTAssertEqual(try store.trimDeliveryLog(keeping: 10), 0)
        let log = try store.deliveryLog(limit: 100)
        XCTAssertEqual(log.map(\.detail), (15..<25).reversed().map { "id-\($0)" }, "the newest ten, newest first")
        XCTAssertEqual(try store.trimDeliveryLog(keeping: 0), 10)
        XCTAssertEqual(try store.deliveryLog(limit: 100), [])
    }

    /// A batch completes in one statement per kind of outcome: every row gets its own
    /// outcome, error text arrives intact (quotes, backslashes, braces, commas, NULL-looking
    /// words, non-ASCII), and the log keeps the batch's order.
    func testABatchOfMixedOutcomesCompletesEachRowWithItsOwnText() throws {
        let store = try makeStore()
        let ids = try makeDevices(store, count: 6)
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        let now = Outbox.storeNow
        let claimed = try store.claimDue(limit: 10, now: now, lease: 30_000, node: "node-a")
        let awkward = #"He said "no", then \ {a,b} NULL ; 'x' — ünïcode"#
        try store.complete(
            [
                (claimed[0], .retry(at: now + 5_000, error: awkward)),
                (claimed[1], .delivered(id: "apns-\"1\"")),
                (claimed[2], .dead(error: "rejected (400): {BadTopic}")),
                (claimed[3], .retry(at: now + 7_000, error: "NULL")),
                (claimed[4], .delivered(id: nil)),
                (claimed[5], .dead(error: "")),
            ],
            now: now + 1)

        XCTAssertEqual(try lastError(claimed[0].id), awkward)
        XCTAssertEqual(try lastError(claimed[3].id), "NULL", "the word, not SQL NULL")
        XCTAssertEqual(
            try store.deadLetters(limit: 10).map(\.lastError), ["rejected (400): {BadTopic}", ""])
        XCTAssertEqual(try store.pendingCount(), 2)
        XCTAssertEqual(try store.claims(), [], "no row left leased")
        let log = try store.deliveryLog(limit: 10).reversed().map { [$0.kind.rawValue, $0.detail ?? "nil"] }
        XCTAssertEqual(
            log,
            [
                ["retry", awkward], ["delivered", "apns-\"1\""], ["dead", "rejected (400): {BadTopic}"],
                ["retry", "NULL"], ["delivered", "nil"], ["dead", ""],
            ])
        let outcomes = try store.devices().filter { ids.contains($0.id) }.sorted { $0.id < $1.id }.map(\.lastOutcome)
        XCTAssertEqual(
            outcomes,
            [
                "not delivered, retrying: \(awkward)", "delivered", "given up: rejected (400): {BadTopic}",
                "not delivered, retrying: NULL", "delivered", "given up: ",
            ])
    }

    /// A batch whose rows change app, source and outcome from one to the next: each log
    /// entry and each device's last outcome is its own row's (SQLite keeps what did not
    /// change bound from one row to the next).
    func testABatchInterleavingAppsSourcesAndOutcomesLogsEachRowAsItsOwn() throws {
        let store = try makeStore()
        try store.addApp(Fixture.apnsApp, replacing: true)
        try store.addApp(Fixture.fcmApp, replacing: true)
        try store.saveAccountTokens(
            selector: "user-a", username: nil,
            tokens: [
                Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2, app: Fixture.fcmAppID),
            ])
        let ids = try store.devices().sorted { $0.id < $1.id }.map(\.id)
        XCTAssertEqual(ids.count, 2)
        var other = Outbox.message
        other.source = "cospace:push"
        _ = try store.enqueue(Outbox.message, deviceIDs: ids)
        _ = try store.enqueue(other, deviceIDs: ids)
        let now = Outbox.storeNow
        let claimed = try store.claimDue(limit: 10, now: now, lease: 30_000, node: "node-a")
        XCTAssertEqual(claimed.count, 4)
        func row(_ source: String, _ deviceID: Int64) throws -> OutboxDelivery {
            try XCTUnwrap(claimed.first { $0.source == source && $0.notification.deviceID == deviceID })
        }
        let batch: [(delivery: OutboxDelivery, outcome: OutboxOutcome)] = [
            (try row("beams:publish", ids[0]), .delivered(id: "a")),
            (try row("cospace:push", ids[1]), .delivered(id: "b")),
            (try row("cospace:push", ids[0]), .retry(at: now + 5_000, error: "slow")),
            (try row("beams:publish", ids[1]), .delivered(id: "d")),
        ]
        try store.complete(batch, now: now + 1)

        let log = try store.deliveryLog(limit: 10).reversed()
        XCTAssertEqual(
            log.map { [$0.appID, $0.token, $0.kind.rawValue, $0.detail ?? "nil", $0.source ?? "nil"] },
            batch.map { delivery, outcome in
                let kind: String
                let detail: String
                switch outcome {
                case .delivered(let id): (kind, detail) = ("delivered", id ?? "nil")
                case .retry(_, let error): (kind, detail) = ("retry", error)
                default: (kind, detail) = ("?", "?")
                }
                return [
                    delivery.notification.appID.rawValue, delivery.notification.token.description, kind, detail,
                    delivery.source,
                ]
            })
        XCTAssertEqual(Set(log.map(\.appID)), [Fixture.apnsAppID.rawValue, Fixture.fcmAppID.rawValue])
        // Each device's last outcome is that of its last row in the batch.
        XCTAssertEqual(
            try store.devices().sorted { $0.id < $1.id }.map(\.lastOutcome),
            ["not delivered, retrying: slow", "delivered"])
    }

    /// Big batches: 12,000 rows completed in one call, and the log trimmed in several
    /// transactions to the newest ten.
    func testAnOversizedBatchCompletesAndTheLogIsTrimmedInBatches() throws {
        let store = try makeStore()
        let total = 12_000
        let ids = try makeManyDevices(count: total)
        XCTAssertEqual(try store.enqueue(Outbox.message, deviceIDs: ids), total)
        let claimed = try store.claimDue(limit: total, now: Outbox.storeNow, lease: 30_000, node: "node-a")
        XCTAssertEqual(claimed.count, total)
        try store.complete(claimed.map { ($0, .delivered(id: "id-\($0.id)")) }, now: Outbox.storeNow)
        XCTAssertEqual(try store.pendingCount(), 0)
        XCTAssertEqual(try count("outbox_payloads", in: try openDatabase()), 0, "the payload went with the last row")
        XCTAssertEqual(try count("delivery_log", in: try openDatabase()), Int64(total))

        XCTAssertEqual(try store.trimDeliveryLog(keeping: 10), total - 10)
        XCTAssertEqual(try store.deliveryLog(limit: 100).map(\.detail), claimed.suffix(10).reversed().map { "id-\($0.id)" })
    }

    /// The fan-out benchmark's store half: 100,000 devices enqueued in one transaction, then
    /// claimed and completed in batches of 1,000. Times are printed, not asserted (shared CI).
    func testEnqueueClaimAndCompleteOneHundredThousandRows() throws {
        let store = try makeStore()
        let total = 100_000
        let ids = try makeManyDevices(count: total)

        var started = Date()
        XCTAssertEqual(try store.enqueue(Outbox.message, deviceIDs: ids), total)
        let enqueueSeconds = Date().timeIntervalSince(started)

        started = Date()
        var claimSeconds = 0.0
        var delivered = 0
        while true {
            let claimStarted = Date()
            let batch = try store.claimDue(limit: 1_000, now: Outbox.storeNow, lease: 60_000)
            claimSeconds += Date().timeIntervalSince(claimStarted)
            if batch.isEmpty { break }
            try store.complete(batch.map { ($0, OutboxOutcome.delivered(id: nil)) }, now: Outbox.storeNow)
            delivered += batch.count
        }
        let drainSeconds = Date().timeIntervalSince(started)
        XCTAssertEqual(delivered, total)
        XCTAssertEqual(try store.pendingCount(), 0)
        print(
            String(
                format: "outbox store: enqueue %d rows %.3f s; claim+complete %.3f s (claims %.3f s), %.0f rows/s",
                total, enqueueSeconds, drainSeconds, claimSeconds, Double(total) / drainSeconds))
    }

    private func lastError(_ id: Int64) throws -> String? {
        try openDatabase().withStatement("SELECT last_error FROM outbox WHERE id = ?") {
            try $0.bind(id, at: 1)
            return try $0.step() ? $0.string(0) : nil
        }
    }
}

/// The outbox tests' base: a store, and devices to queue pushes for. (Here rather than in a
/// file of its own: this work owns only the `Outbox*Tests.swift` files of the target.)
class OutboxTestCase: StoreTestCase {
    /// Devices `user-0`, `user-1`, … (Acrobits accounts, calls channel), tokens of seeds 1, 2, …;
    /// returns their ids in that order.
    func makeDevices(_ store: any StoreUnderTest, count: Int) throws -> [Int64] {
        try store.addApp(Fixture.apnsApp, replacing: true)
        for index in 0..<count {
            try store.saveAccountTokens(
                selector: "user-\(index)", username: nil,
                tokens: [Fixture.channelToken(.calls, seed: UInt8(index + 1))])
        }
        let tokens = (0..<count).map { Fixture.apnsToken(UInt8($0 + 1)) }
        let byToken = Dictionary(uniqueKeysWithValues: try store.devices().map { ($0.token, $0.id) })
        return try tokens.map { try XCTUnwrap(byToken[$0]) }
    }

    /// `count` devices with random tokens, written straight into the table (fast).
    func makeManyDevices(count: Int) throws -> [Int64] {
        let database = try openDatabase()
        let randomToken = sql(
            sqlite: "randomblob(32)",
            postgresql: "decode(md5(random()::text) || md5(random()::text), 'hex')")
        try database.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
            SELECT 'com.example.phone', \(randomToken), 'bench', 'apns', 0, 0 FROM n
            """)
        return try database.withStatement("SELECT id FROM devices ORDER BY id") { row in
            var ids: [Int64] = []
            while try row.step() { ids.append(row.int64(0)) }
            return ids
        }
    }
}

enum Outbox {
    /// `makeStore()`'s clock (1_700_000_000 s) in the outbox's milliseconds.
    static let storeNow: Int64 = 1_700_000_000_000

    static let message = OutboxMessage(
        source: "beams:publish",
        apns: APNsMessage(
            payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), pushType: .alert, priority: 10, collapseID: "c1"),
        fcm: FCMMessage(fields: ["data": .object(["kind": .string("hello"), "n": .number(3)])]))
}
