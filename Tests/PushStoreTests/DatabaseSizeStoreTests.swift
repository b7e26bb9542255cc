import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The hourly samples of the database's size (`database_sizes`) on the real schema, on either
/// engine, with the time (`now`, as housekeeping's store calls take it) set by the test: what
/// /status and doctor compare the size with.
final class DatabaseSizeStoreTests: StoreTestCase {
    /// 2023-11-14 22:13:20 UTC, 13:20 into its hour.
    static let start: Int64 = 1_700_000_000
    static let startHour: Int64 = 1_699_999_200
    static let hour: Int64 = 3_600
    static let day: Int64 = 86_400

    func samples(in database: some SQLConnection) throws -> [DatabaseSize.Sample] {
        try database.withStatement("SELECT taken_at, bytes FROM database_sizes ORDER BY taken_at") { row in
            var samples: [DatabaseSize.Sample] = []
            while try row.step() { samples.append(.init(takenAt: row.int64(0), bytes: row.int64(1))) }
            return samples
        }
    }

    func testTwoSamplesADayApartGiveTheGrowth() throws {
        let store = try makeStore()
        XCTAssertNil(try store.databaseSizeADayBefore(Self.start), "no sample yet")

        try store.recordDatabaseSize(bytes: 1_000_000, now: Self.start)
        try store.recordDatabaseSize(bytes: 1_500_000, now: Self.start + Self.hour)
        XCTAssertNil(try store.databaseSizeADayBefore(Self.start + Self.hour), "nothing is a day old yet")
        XCTAssertNil(
            try store.databaseSizeADayBefore(Self.startHour + Self.day - 1), "the first sample's hour is a second short of a day")

        let aDayLater = Self.start + Self.day
        try store.recordDatabaseSize(bytes: 4_000_000, now: aDayLater)
        let dayAgo = DatabaseSize.Sample(takenAt: Self.startHour, bytes: 1_000_000)
        XCTAssertEqual(try store.databaseSizeADayBefore(aDayLater), dayAgo)
        XCTAssertEqual(try store.databaseSizeADayBefore(Self.startHour + Self.day), dayAgo, "a day to the second")
        XCTAssertEqual(
            try store.databaseSizeADayBefore(aDayLater + Self.hour), .init(takenAt: Self.startHour + Self.hour, bytes: 1_500_000),
            "the newest sample a day old, not the oldest")

        // The size now is the database's own; the growth is it less the day-old sample.
        let size = try store.databaseSize(now: aDayLater)
        XCTAssertGreaterThan(size.bytes, 0)
        XCTAssertEqual(size.dayAgo, dayAgo)
        XCTAssertEqual(size.growthOverADay, size.bytes - 1_000_000)
    }

    /// Nodes that sample in one hour (or a serve restarted within it) write one row: the
    /// first sample of the hour stays, and every node reads the same one.
    func testSamplesOfOneHourCollapseToTheFirst() throws {
        let node1 = try makeStore()
        let node2 = try makeStore()
        try node1.recordDatabaseSize(bytes: 1_000, now: Self.startHour + 10)
        try node2.recordDatabaseSize(bytes: 2_000, now: Self.startHour + 600)
        try node1.recordDatabaseSize(bytes: 3_000, now: Self.startHour + Self.hour - 1)
        let database = try openDatabase()
        XCTAssertEqual(try samples(in: database), [.init(takenAt: Self.startHour, bytes: 1_000)])

        try node2.recordDatabaseSize(bytes: 4_000, now: Self.startHour + Self.hour)
        XCTAssertEqual(
            try samples(in: database),
            [.init(takenAt: Self.startHour, bytes: 1_000), .init(takenAt: Self.startHour + Self.hour, bytes: 4_000)])
        for node in [node1, node2] {
            XCTAssertEqual(
                try node.databaseSizeADayBefore(Self.startHour + Self.day + 1_800),
                .init(takenAt: Self.startHour, bytes: 1_000))
        }
    }

    /// A sample stays two days (the day it is compared over, and a day's slack); each new
    /// sample takes the older ones away, so the table holds 48 or 49 rows.
    func testSamplesOlderThanTwoDaysGo() throws {
        let store = try makeStore()
        for hour in Int64(0)..<60 {
            try store.recordDatabaseSize(bytes: hour, now: Self.start + hour * Self.hour)
        }
        let database = try openDatabase()
        let kept = try samples(in: database)
        // At hour 59 (13:20 into it), hours 11 (13:20 in) and before are more than two days old.
        XCTAssertEqual(kept.map(\.bytes), Array(12..<60))
        XCTAssertEqual(kept.first?.takenAt, Self.startHour + 12 * Self.hour)
        XCTAssertEqual(try store.databaseSizeADayBefore(Self.start + 59 * Self.hour)?.bytes, 35)
    }

    /// Only a sample's hour is a sample time: the schema refuses any other, on both engines.
    func testTheSchemaRefusesASampleTimeOffTheHour() throws {
        _ = try makeStore()
        let database = try openDatabase()
        XCTAssertThrowsError(
            try database.execute("INSERT INTO database_sizes (taken_at, bytes) VALUES (\(Self.start), 1)"))
        XCTAssertEqual(try count("database_sizes", in: database), 0)
    }
}
