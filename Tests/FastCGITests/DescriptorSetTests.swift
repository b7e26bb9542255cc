import XCTest

@testable import FastCGI

/// The parked connections' set: what goes in is there until it is taken out, across words.
final class DescriptorSetTests: XCTestCase {
    func testInsertRemoveAndList() {
        var set = DescriptorSet()
        for descriptor: Int32 in [0, 5, 63, 64, 1000] { set.insert(descriptor) }
        set.insert(5)
        set.insert(-1)
        XCTAssertEqual(set.descriptors, [0, 5, 63, 64, 1000])
        set.remove(63)
        set.remove(2000)
        set.remove(-1)
        XCTAssertFalse(set.contains(63))
        XCTAssertTrue(set.contains(64))
        XCTAssertFalse(set.contains(-1))
        XCTAssertFalse(set.contains(5000))
        XCTAssertEqual(set.descriptors, [0, 5, 64, 1000])
    }
}
