import XCTest

@testable import MockUpstream

/// The mocks' cheap ids are canonical version-4-shaped UUIDs and never repeat.
final class UUIDSourceTests: XCTestCase {
    func testIDsAreCanonicalAndUnique() {
        let source = UUIDSource()
        let ids = (0..<1000).map { _ in source.next() }
        XCTAssertEqual(Set(ids).count, ids.count)
        for id in ids.prefix(20) {
            XCTAssertTrue(APNsHeaderRules.isCanonicalUUID(id), id)
            XCTAssertEqual(Array(id)[14], "4", "version 4: \(id)")
            XCTAssertTrue("89ab".contains(Array(id)[19]), "RFC 4122 variant: \(id)")
            XCTAssertEqual(id, id.lowercased())
            XCTAssertNotNil(UUID(uuidString: id), id)
        }
        XCTAssertNotEqual(UUIDSource().next(), UUIDSource().next(), "random prefix per source")
    }
}
