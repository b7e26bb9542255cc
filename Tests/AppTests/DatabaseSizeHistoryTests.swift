import PushCore
import XCTest

@testable import App

/// The database's size as serve samples it hourly, and its growth over the last day.
final class DatabaseSizeHistoryTests: XCTestCase {
    let start: Int64 = 1_700_000_000

    func testTheGrowthIsTheSizeNowLessTheNewestSampleADayOld() throws {
        let history = DatabaseSizeHistory()
        var measured = 0
        func sample(_ now: Int64, _ bytes: Int64) throws {
            try history.sampleIfDue(now: now) {
                measured += 1
                return bytes
            }
        }
        try sample(start, 1_000)
        try sample(start + 1_800, 1_500)
        XCTAssertEqual(measured, 1, "one sample an hour: the store is not read each minute")
        try sample(start + 3_600, 2_000)
        XCTAssertNil(history.size(bytes: 3_000, now: start + 3_600).dayAgo, "nothing is a day old yet")

        let aDayLater = history.size(bytes: 5_000, now: start + 86_400 + 100)
        XCTAssertEqual(aDayLater.dayAgo, .init(takenAt: start, bytes: 1_000))
        XCTAssertEqual(aDayLater.growthOverADay, 4_000)
        XCTAssertEqual(history.size(bytes: 5_000, now: start + 86_400 + 3_700).growthOverADay, 3_000)
    }

    func testSamplesOlderThanADayAndAHalfGo() throws {
        let history = DatabaseSizeHistory()
        for hour in 0..<48 { try history.sampleIfDue(now: start + Int64(hour) * 3_600) { Int64(hour) } }
        // At hour 47 the newest sample a day old is hour 23's; hours before 21 went.
        XCTAssertEqual(history.size(bytes: 100, now: start + 47 * 3_600).dayAgo?.bytes, 23)
        XCTAssertEqual(history.size(bytes: 100, now: start + 21 * 3_600 + 86_400).dayAgo?.bytes, 21)
        XCTAssertNil(history.size(bytes: 100, now: start + 20 * 3_600 + 86_400).dayAgo, "hour 20's sample went")
    }
}
