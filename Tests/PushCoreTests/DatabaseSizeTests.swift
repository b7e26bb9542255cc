import PushCore
import XCTest

/// The database size line /status and doctor show.
final class DatabaseSizeTests: XCTestCase {
    func testSizesAreWrittenInDecimalUnits() {
        XCTAssertEqual(DatabaseSize.text(950), "950 B")
        XCTAssertEqual(DatabaseSize.text(12_345), "12.3 kB")
        XCTAssertEqual(DatabaseSize.text(4_500_000), "4.5 MB")
        XCTAssertEqual(DatabaseSize.text(1_234_000_000), "1.2 GB")
    }

    func testTheSummarySaysTheGrowthSinceTheDayOldSample() {
        let size = DatabaseSize(bytes: 5_700_000, dayAgo: .init(takenAt: 1_700_000_000, bytes: 4_500_000))
        XCTAssertEqual(size.growthOverADay, 1_200_000)
        XCTAssertEqual(size.summary, "5.7 MB; +1.2 MB over the last day (since 2023-11-14 22:13 UTC)")
        let shrunk = DatabaseSize(bytes: 4_000_000, dayAgo: .init(takenAt: 1_700_000_000, bytes: 4_500_000))
        XCTAssertEqual(shrunk.summary, "4.0 MB; -500.0 kB over the last day (since 2023-11-14 22:13 UTC)")
        XCTAssertEqual(
            DatabaseSize(bytes: 950, dayAgo: nil).summary,
            "950 B; its growth over the last day is not known yet: serve records the size each hour, "
                + "the growth is known a day after its first record")
    }

    func testASampleIsTakenAtTheStartOfItsHour() {
        XCTAssertEqual(DatabaseSize.sampleTime(1_700_000_000), 1_699_999_200)
        XCTAssertEqual(DatabaseSize.sampleTime(1_699_999_200), 1_699_999_200)
        XCTAssertEqual(DatabaseSize.sampleTime(1_699_999_199), 1_699_995_600)
        XCTAssertEqual(DatabaseSize.sampleTime(-1), -3_600, "before 1970 too, down and not toward zero")
    }
}
