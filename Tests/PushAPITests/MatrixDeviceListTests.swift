import XCTest

@testable import PushAPI

/// The devices of a notify are counted on its bytes before it is parsed: exactly, whatever the
/// spacing, the key's spelling or the elements' kinds, and never counting an event's content.
final class MatrixDeviceListTests: XCTestCase {
    private func body(devices: [String], spacing: String = "") -> [UInt8] {
        let list = devices.joined(separator: ",\(spacing)")
        return Array(
            #"{"notification": {"event_id": "$e", "devices":\#(spacing)[\#(spacing)\#(list)\#(spacing)]}}"#.utf8)
    }

    func testCountsEachDeviceExactly() {
        let device = #"{"app_id": "a", "pushkey": "k,[]{}\"", "data": {"x": [1, 2, 3]}}"#
        for count in [0, 1, 2, 3, 10] {
            let devices = Array(repeating: device, count: count)
            XCTAssertTrue(MatrixDeviceList.isWithin(count, body(devices: devices)), "\(count)")
            XCTAssertTrue(MatrixDeviceList.isWithin(count, body(devices: devices, spacing: " \n\t")), "\(count)")
            if count > 0 {
                XCTAssertFalse(MatrixDeviceList.isWithin(count - 1, body(devices: devices)), "\(count)")
                XCTAssertFalse(MatrixDeviceList.isWithin(count - 1, body(devices: devices, spacing: " \n")), "\(count)")
            }
        }
        // Elements of any kind count, and a trailing comma (which the parser allows) adds none.
        XCTAssertTrue(MatrixDeviceList.isWithin(3, Array(#"{"notification": {"devices": [1, "two", null,]}}"#.utf8)))
        XCTAssertFalse(MatrixDeviceList.isWithin(2, Array(#"{"notification": {"devices": [1, "two", null,]}}"#.utf8)))
    }

    func testAnEscapedKeyIsCountedTooAndContentIsNot() {
        let escaped = Array(#"{"notification": {"dev\u0069ces": [{}, {}, {}]}}"#.utf8)
        XCTAssertFalse(MatrixDeviceList.isWithin(2, escaped))
        // An event's content may hold long arrays: a message cannot make its notify refused.
        let content = "[" + Array(repeating: "1", count: 5000).joined(separator: ",") + "]"
        let message = Array(#"{"notification": {"content": {"list": \#(content)}, "devices": [{}]}}"#.utf8)
        XCTAssertTrue(MatrixDeviceList.isWithin(1, message))
        // Brackets inside strings are text.
        XCTAssertTrue(MatrixDeviceList.isWithin(1, Array(#"{"notification": {"devices": ["[{,,,}]"]}}"#.utf8)))
    }

    func testAHundredThousandDevicesAreRefusedFromTheBytes() {
        let body = body(devices: Array(repeating: "{}", count: 100_000))
        XCTAssertFalse(MatrixDeviceList.isWithin(1000, body))
    }
}
