import PushCore
import XCTest

@testable import FastCGI

final class CGIRequestMappingTests: XCTestCase {
    private func map(_ params: [String: String], body: [UInt8] = []) -> Request {
        CGIRequestMapping.request(
            params: CGIParams(pairs: params.map { ($0.key, $0.value) }), body: body, fallbackID: "t0-1")
    }

    func testSplitsRequestURIAtTheFirstQuestionMarkAndKeepsItRaw() {
        let request = map(["REQUEST_METHOD": "GET", "REQUEST_URI": "/a%2Fb/c?x=1&y=%3F?z", "QUERY_STRING": "ignored"])
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.path, "/a%2Fb/c")
        XCTAssertEqual(request.query, "x=1&y=%3F?z")
    }

    func testRequestURIWithoutQueryHasAnEmptyQuery() {
        let request = map(["REQUEST_URI": "/token/"])
        XCTAssertEqual(request.path, "/token/")
        XCTAssertEqual(request.query, "")
    }

    func testTrailingQuestionMarkGivesAnEmptyQuery() {
        let request = map(["REQUEST_URI": "/token?"])
        XCTAssertEqual(request.path, "/token")
        XCTAssertEqual(request.query, "")
    }

    func testFallsBackToDocumentURIAndQueryStringWithoutRequestURI() {
        let request = map(["REQUEST_METHOD": "POST", "DOCUMENT_URI": "/pnm2/send", "QUERY_STRING": "a=b"])
        XCTAssertEqual(request.path, "/pnm2/send")
        XCTAssertEqual(request.query, "a=b")
        let empty = map(["REQUEST_URI": "", "DOCUMENT_URI": "/x"])
        XCTAssertEqual(empty.path, "/x")
        XCTAssertEqual(empty.query, "")
    }

    func testFallsBackToScriptNameAndPathInfoThenToSlash() {
        XCTAssertEqual(map(["SCRIPT_NAME": "/api", "PATH_INFO": "/push"]).path, "/api/push")
        XCTAssertEqual(map([:]).path, "/")
        XCTAssertEqual(map([:]).method, "GET")
    }

    func testAbsoluteFormTargetIsReducedToThePath() {
        XCTAssertEqual(map(["REQUEST_URI": "http://example.com:8080/token?a=1"]).path, "/token")
        XCTAssertEqual(map(["REQUEST_URI": "http://example.com:8080/token?a=1"]).query, "a=1")
        XCTAssertEqual(map(["REQUEST_URI": "https://example.com"]).path, "/")
        XCTAssertEqual(map(["REQUEST_URI": "http://example.com?q"]).path, "/")
        XCTAssertEqual(map(["REQUEST_URI": "http://example.com?q"]).query, "q")
    }

    func testMapsHTTPParamsToLowercaseHyphenatedHeaders() {
        let request = map([
            "HTTP_USER_AGENT": "Acrobits/1.0", "HTTP_AUTHORIZATION": "Bearer k", "HTTP_X_FORWARDED_FOR": "1.2.3.4",
            "HTTP_HOST": "localhost", "SERVER_NAME": "_", "REQUEST_METHOD": "GET",
        ])
        XCTAssertEqual(
            request.headers,
            [
                "user-agent": "Acrobits/1.0", "authorization": "Bearer k", "x-forwarded-for": "1.2.3.4",
                "host": "localhost",
            ])
        XCTAssertEqual(request.header("User-Agent"), "Acrobits/1.0")
    }

    func testContentTypeAndLengthBecomeHeadersAndWinOverHTTPParams() {
        let request = map([
            "CONTENT_TYPE": "application/json; charset=utf-8", "CONTENT_LENGTH": "12",
            "HTTP_CONTENT_TYPE": "text/plain", "HTTP_CONTENT_LENGTH": "99",
        ])
        XCTAssertEqual(request.headers["content-type"], "application/json; charset=utf-8")
        XCTAssertEqual(request.headers["content-length"], "12")
        XCTAssertEqual(request.mediaType, "application/json")
    }

    func testEmptyContentTypeAndLengthAreAbsent() {
        // nginx sends both params empty for a GET without a body.
        let request = map(["CONTENT_TYPE": "", "CONTENT_LENGTH": ""])
        XCTAssertNil(request.headers["content-type"])
        XCTAssertNil(request.headers["content-length"])
    }

    func testRemoteAddressIdAndBody() {
        let request = map(["REMOTE_ADDR": "192.0.2.7", "REQUEST_ID": "0123abcd"], body: [1, 2, 3])
        XCTAssertEqual(request.remoteAddress, "192.0.2.7")
        XCTAssertEqual(request.id, "0123abcd")
        XCTAssertEqual(request.body, [1, 2, 3])
    }

    func testMissingRemoteAddressIsNeverLoopback() {
        XCTAssertEqual(map([:]).remoteAddress, "")
    }

    func testFallbackIdWithoutRequestID() {
        XCTAssertEqual(map([:]).id, "t0-1")
        XCTAssertEqual(map(["REQUEST_ID": ""]).id, "t0-1")
    }

    func testRepeatedHeaderParamsAreJoined() {
        let params = CGIParams(pairs: [
            ("HTTP_ACCEPT", "a"), ("HTTP_ACCEPT", "b"), ("HTTP_COOKIE", "x=1"), ("HTTP_COOKIE", "y=2"),
            ("REQUEST_URI", "/first"), ("REQUEST_URI", "/second"),
        ])
        XCTAssertEqual(params.headers["accept"], "a, b")
        XCTAssertEqual(params.headers["cookie"], "x=1; y=2")
        XCTAssertEqual(params.requestURI, "/first")
    }

    /// Only the variables a request is made of are kept; a name that merely starts like one
    /// (or is `HTTP_` alone) is not taken for it.
    func testOtherVariablesAreSkipped() {
        let params = CGIParams(pairs: [
            ("SERVER_SOFTWARE", "nginx"), ("REQUEST_URI_X", "/no"), ("REQUEST_UR", "/no"), ("HTTP_", "x"),
            ("REMOTE_ADDR", "192.0.2.1"), ("NOEQUALS", ""),
        ])
        var expected = CGIParams()
        expected.remoteAddress = "192.0.2.1"
        XCTAssertEqual(params, expected)
    }

    /// Each variable a request is made of is found by its name, whichever shares its length.
    func testEveryVariableIsRead() {
        let params = CGIParams(pairs: [
            ("REQUEST_METHOD", "POST"), ("REQUEST_URI", "/a?b"), ("DOCUMENT_URI", "/a"), ("SCRIPT_NAME", "/s"),
            ("PATH_INFO", "/p"), ("QUERY_STRING", "b"), ("CONTENT_TYPE", "text/plain"), ("CONTENT_LENGTH", "3"),
            ("REMOTE_ADDR", "192.0.2.1"), ("REQUEST_ID", "r1"), ("REQUEST_IX", "no"), ("SCRIPT_NAMF", "no"),
        ])
        XCTAssertEqual(
            [
                params.requestMethod, params.requestURI, params.documentURI, params.scriptName, params.pathInfo,
                params.queryString, params.contentType, params.contentLength, params.remoteAddress, params.requestID,
            ], ["POST", "/a?b", "/a", "/s", "/p", "b", "text/plain", "3", "192.0.2.1", "r1"])
        XCTAssertEqual(params.headers, [:])
    }

    func testHeaderNamesAreLowercasedWithHyphens() {
        let params = CGIParams(pairs: [("HTTP_X_PUSHGATE_KEY", "k"), ("HTTP_ACCEPT_ENCODING_9", "v")])
        XCTAssertEqual(params.headers, ["x-pushgate-key": "k", "accept-encoding-9": "v"])
        // The common names are made once, the rest byte by byte: both the same way.
        let common = CGIParams(pairs: [
            ("HTTP_ACCEPT_ENCODING", "gzip"), ("HTTP_CONNECTION", "close"), ("HTTP_HOS", "h"), ("HTTP_ACCEPT", "*/*"),
        ])
        XCTAssertEqual(common.headers, ["accept-encoding": "gzip", "connection": "close", "hos": "h", "accept": "*/*"])
    }
}
