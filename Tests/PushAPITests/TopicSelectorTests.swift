import PushAPI
import XCTest

final class TopicSelectorTests: XCTestCase {
    func selector(_ expression: String) throws -> TopicSelector { try TopicSelector(parsing: expression) }
    func path(_ text: String) throws -> TopicPath { try TopicPath(text) }

    func testEverySpellingOfAPathSelectorHasOneCanonicalForm() throws {
        for (expression, canonical) in [
            (">a/b", ">a/b"), ("a/b", ">a/b"), ("/a/b", ">a/b"), (">/a/b", ">a/b"),
            (">a/b/", ">a/b/"), ("a/b/", ">a/b/"), (">a/b//", ">a/b//"), ("a/b//", ">a/b//"),
            ("?a/b//", ">a/b//"), ("*a/b/", ">a/b/"), ("?a", ">a"), ("sport/football", ">sport/football"),
            (">prices/EUR-USD", ">prices/EUR-USD"), ("ünïcode/päth", ">ünïcode/päth"),
        ] {
            XCTAssertEqual(try selector(expression).canonical, canonical, expression)
            XCTAssertEqual(try selector(canonical).canonical, canonical, "the canonical form parses to itself")
        }
    }

    func testTheThreeScopesSelectWhatDiffusionSelects() throws {
        let exact = try selector(">a/b")
        let below = try selector(">a/b/")
        let both = try selector(">a/b//")
        let cases: [(String, exact: Bool, below: Bool, both: Bool)] = [
            ("a/b", true, false, true),
            ("a/b/c", false, true, true),
            ("a/b/c/d", false, true, true),
            ("a", false, false, false),
            ("a/bc", false, false, false),  // a sibling sharing the prefix is no descendant
            ("a/bc/d", false, false, false),
            ("x/a/b", false, false, false),
            ("/a/b", true, false, true),  // paths are absolute: a leading / changes nothing
        ]
        for (text, isExact, isBelow, isBoth) in cases {
            let topic = try path(text)
            XCTAssertEqual(exact.selects(topic), isExact, ">a/b selects \(text)")
            XCTAssertEqual(below.selects(topic), isBelow, ">a/b/ selects \(text)")
            XCTAssertEqual(both.selects(topic), isBoth, ">a/b// selects \(text)")
        }
    }

    /// The store matches by looking up `canonicalSelectors(selecting:)`: that list must hold
    /// exactly the selectors that `selects` accepts, for every pair.
    func testTheLookupListAgreesWithSelects() throws {
        let paths = ["a", "a/b", "a/b/c", "a/bc", "b", "a/b/c/d", "x/y"]
        var selectors: [TopicSelector] = []
        for text in paths {
            selectors += [try selector(">\(text)"), try selector(">\(text)/"), try selector(">\(text)//")]
        }
        for text in paths {
            let topic = try path(text)
            let lookup = Set(TopicSelector.canonicalSelectors(selecting: topic))
            for candidate in selectors {
                XCTAssertEqual(
                    lookup.contains(candidate.canonical), candidate.selects(topic), "\(candidate) for \(text)")
            }
        }
        XCTAssertEqual(
            TopicSelector.canonicalSelectors(selecting: try path("a/b/c")).sorted(),
            [">a/", ">a//", ">a/b/", ">a/b//", ">a/b/c", ">a/b/c//"])
    }

    func testRefusesWhatItCannotServeWithAReason() {
        func reason(_ expression: String) -> String {
            do {
                _ = try TopicSelector(parsing: expression)
                return "accepted"
            } catch {
                return error.description
            }
        }
        XCTAssertEqual(reason(""), "topic selector is empty")
        XCTAssertTrue(reason("?a/.*").contains("regular expression"), reason("?a/.*"))
        XCTAssertTrue(reason("*a/b+").contains("regular expression"))
        XCTAssertTrue(reason("?prices/eur.usd").contains("regular expression"), "a dot matches any character")
        XCTAssertTrue(reason("#>a////>b").contains("selector sets"))
        XCTAssertTrue(reason("$a").contains("reserved"))
        XCTAssertTrue(reason(">a//b").contains("empty part"), reason(">a//b"))
        XCTAssertTrue(reason(">a///").contains("empty part"))
        XCTAssertTrue(reason(">").contains("names no path"))
        XCTAssertTrue(reason("//").contains("names no path"))
        XCTAssertTrue(reason("a\u{0}b").contains("control character"))
        XCTAssertTrue(reason(String(repeating: "a", count: 1025)).contains("longer than 1024"))
        XCTAssertEqual(reason(String(repeating: "a", count: 1024)), "accepted")
    }

    func testTopicPathsRefuseEmptyParts() {
        XCTAssertThrowsError(try TopicPath("")) { XCTAssertEqual($0 as? TopicPath.ParseError, .empty) }
        XCTAssertThrowsError(try TopicPath("/")) { XCTAssertEqual($0 as? TopicPath.ParseError, .empty) }
        XCTAssertThrowsError(try TopicPath("a//b")) { XCTAssertEqual($0 as? TopicPath.ParseError, .emptyPart) }
        XCTAssertThrowsError(try TopicPath("a/")) { XCTAssertEqual($0 as? TopicPath.ParseError, .emptyPart) }
        XCTAssertEqual(try TopicPath("a/b/c").ancestors, ["a", "a/b"])
        XCTAssertEqual(try TopicPath("a").ancestors, [])
    }
}
