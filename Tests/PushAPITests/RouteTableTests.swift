import PushCore
import XCTest

@testable import PushAPI

/// One walk over a path's segments finds its route: the most specific wins whatever the order
/// of the table, parameters and tails come back as sent, and two routes of one shape are refused.
final class RouteTableTests: XCTestCase {
    private let patterns = [
        "/api/push/{path...}", "/api/push/?", "/api/push/events/?",
        "/publish_api/v1/instances/{instance}/publishes/users", "/publish_api/{path...}",
        "/pushToken/{username}/{selector}/{token...}", "/pushToken/{path...}",
        "/token/{path...}", "/devices/{platform}", "/devices/{platform}/", "/devices/{path...}",
    ].map(RoutePattern.init)

    private func route(_ path: String, in patterns: [RoutePattern]) -> String? {
        RouteTable(patterns).match(path).map { patterns[$0.index].description }
    }

    func testTheMostSpecificRouteWinsInEveryOrder() {
        let expected: [String: String?] = [
            "/api/push": "/api/push/?",
            "/api/push/": "/api/push/?",
            "/api/push/events": "/api/push/events/?",
            "/api/push/events/": "/api/push/events/?",
            "/api/push/events//": "/api/push/{path...}",
            "/publish_api/v1/instances/abc/publishes/users/": "/publish_api/{path...}",
            "/api/push/other": "/api/push/{path...}",
            "/api/pushes": nil,
            "/publish_api/v1/instances/abc/publishes/users": "/publish_api/v1/instances/{instance}/publishes/users",
            "/publish_api/v1/instances/abc/publishes": "/publish_api/{path...}",
            "/publish_api/v1/instances//publishes/users": "/publish_api/{path...}",
            "/pushToken/alice/sel/tok": "/pushToken/{username}/{selector}/{token...}",
            "/pushToken/alice": "/pushToken/{path...}",
            "/token": "/token/{path...}",
            "/token/alice/": "/token/{path...}",
            "/tokens": nil,
            // A pattern ending in `/` takes the path ending in that `/` alone.
            "/devices/apns": "/devices/{platform}",
            "/devices/apns/": "/devices/{platform}/",
            "/devices/apns//": "/devices/{path...}",
            "/devices/apns/x": "/devices/{path...}",
            "/devices//": "/devices/{path...}",
            "/": nil,
            "": nil,
        ]
        for order in [patterns, patterns.reversed(), patterns.shuffled()] {
            for (path, route) in expected {
                XCTAssertEqual(self.route(path, in: order), route, path)
            }
        }
    }

    func testParametersAndTailsComeBackRaw() throws {
        let table = RouteTable(patterns)
        let token = try XCTUnwrap(table.match("/pushToken/al%20ice/sel/ab//cd%2F==&appid=x"))
        XCTAssertEqual(token.parameters["username"], "al%20ice")
        XCTAssertEqual(token.parameters["selector"], "sel")
        XCTAssertEqual(token.parameters["token"], "ab//cd%2F==&appid=x")
        XCTAssertNil(try XCTUnwrap(table.match("/token")).parameters["path"])
        XCTAssertEqual(try XCTUnwrap(table.match("/token/")).parameters["path"], "")
        XCTAssertEqual(try XCTUnwrap(table.match("/token/alice/")).parameters["path"], "alice/")
        let users = try XCTUnwrap(table.match("/publish_api/v1/instances/i-1/publishes/users"))
        XCTAssertEqual(users.parameters["instance"], "i-1")
        XCTAssertEqual(users.parameters.count, 1)
    }

    func testEveryRouteTakesSomePath() {
        let table = RouteTable(patterns)
        for (index, pattern) in patterns.enumerated() {
            let taken = (0...3).contains { table.match(pattern.example(tailSegments: $0))?.index == index }
            XCTAssertTrue(taken, pattern.description)
        }
        XCTAssertEqual(RoutePattern("/a/{b}/{c...}").example(tailSegments: 0), "/a/x")
        XCTAssertEqual(RoutePattern("/a/{b}/{c...}").example(tailSegments: 2), "/a/x/x/x")
    }

    func testRoutesOfOneShapeConflict() {
        let conflicts = RouteTable.conflicts(["/a/{b}", "/a/c", "/a/{d}", "/a/{e...}"].map(RoutePattern.init))
        XCTAssertEqual(conflicts.map { "\($0.0) \($0.1)" }, ["/a/{b} /a/{d}"])
        XCTAssertTrue(RouteTable.conflicts(patterns).isEmpty)
    }

    func testShapes() {
        XCTAssertEqual(RoutePattern("/a/{b}/c/{d...}").shape, RoutePattern("/a/{x}/c/{y...}").shape)
        XCTAssertNotEqual(RoutePattern("/a/{b}").shape, RoutePattern("/a/{b...}").shape)
        XCTAssertEqual(RoutePattern("/pnm2/send").literalPrefix, "/pnm2/send")
        XCTAssertEqual(RoutePattern("/token/{path...}").literalPrefix, "/token")
        XCTAssertEqual(RoutePattern("/pushToken/{u}/{s}/{t...}").segmentsBeforeTail, 3)
        XCTAssertEqual(RoutePattern("/api/push/?").literalPrefix, "/api/push")
        XCTAssertEqual(RoutePattern("/api/push/?").shape, RoutePattern("/api/push").shape)
    }
}
