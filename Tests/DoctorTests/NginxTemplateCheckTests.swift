@testable import App
import Foundation
import XCTest

/// The site include against this version's template (the repository's nginx/pushgate.conf).
final class NginxTemplateCheckTests: XCTestCase {
    private let socket = "/run/pushgate/pushgate.sock"

    private func render(_ template: String, socket: String? = nil, port: String = "8080") -> String {
        template.replacingOccurrences(of: "@PUSHGATE_HTTP_PORT@", with: port)
            .replacingOccurrences(of: "@PUSHGATE_SOCKET@", with: socket ?? self.socket)
            .replacingOccurrences(of: "@PUSHGATE_NGINX_MAX_BODY@", with: "2m")
            .replacingOccurrences(of: "@PUSHGATE_NGINX_SENDER_RATE@", with: "100r/s")
            .replacingOccurrences(of: "@PUSHGATE_NGINX_SENDER_BURST@", with: "1000")
    }

    private func template() throws -> String {
        try String(contentsOfFile: DoctorFixtures.nginxTemplate, encoding: .utf8)
    }

    private func compare(_ rendered: String, _ template: String) -> [DoctorFinding] {
        NginxTemplateCheck.compare(rendered: rendered, template: template, renderedPath: "/etc/nginx/conf.d/pushgate.conf", socket: socket)
    }

    func testTheCurrentRenderingMatches() throws {
        let template = try template()
        XCTAssertEqual(compare(render(template), template).map(\.verdict), [.ok])
        // Comments and indentation are the operator's to change.
        let edited = render(template).replacingOccurrences(of: "# pushgate behind nginx", with: "# ours, edited\n\n#")
            .replacingOccurrences(of: "    server_tokens off;", with: "\tserver_tokens off;")
        XCTAssertEqual(compare(edited, template).map(\.verdict), [.ok])
        // So are the address nginx listens on and its TLS settings.
        let publicSite = render(template).replacingOccurrences(
            of: "listen 127.0.0.1:8080;",
            with: "listen 0.0.0.0:443 ssl;\n    listen [::]:443 ssl;\n    ssl_certificate /etc/ssl/push.pem;\n    ssl_certificate_key /etc/ssl/push.key;")
        XCTAssertEqual(compare(publicSite, template).map(\.verdict), [.ok])
        // And who else may read the operator pages (PUSHGATE_NGINX_OPERATOR_ADDRESSES).
        let prometheus = render(template).replacingOccurrences(
            of: "        allow ::1;\n", with: "        allow ::1;\n        allow 10.0.0.5;\n        allow 192.0.2.0/24;\n")
        XCTAssertNotEqual(prometheus, render(template), "the template has the operator pages' allow lines")
        XCTAssertEqual(compare(prometheus, template).map(\.verdict), [.ok])
        // And the senders never rate-limited (PUSHGATE_NGINX_SENDER_ADDRESSES).
        let senders = render(template).replacingOccurrences(
            of: "geo $pushgate_listed_sender {\n    default 0;\n",
            with: "geo $pushgate_listed_sender {\n    default 0;\n    198.51.100.20 1;\n    2001:db8::/48 1;\n")
        XCTAssertNotEqual(senders, render(template), "the template has the listed senders' block")
        XCTAssertEqual(compare(senders, template).map(\.verdict), [.ok])
        // But not exempting everyone from the senders' limit.
        let everyone = render(template).replacingOccurrences(
            of: "geo $pushgate_listed_sender {\n    default 0;\n", with: "geo $pushgate_listed_sender {\n    default 1;\n")
        XCTAssertEqual(compare(everyone, template).map(\.verdict), [.problem])
        // Nor opening the operator pages to everyone.
        let open = render(template).replacingOccurrences(of: "        deny all;\n", with: "")
        XCTAssertEqual(compare(open, template).map(\.verdict), [.problem])
    }

    func testARenderingOfAnOlderTemplateIsAProblem() throws {
        let template = try template()
        let older = template.replacingOccurrences(of: "    fastcgi_keep_conn on;\n", with: "")
        XCTAssertNotEqual(older, template, "the template has the line this test removes")
        let findings = compare(render(older), template)
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("differs from this version's template (`fastcgi_keep_conn on;`)"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("render it again"), findings[0].message)
    }

    func testAnExtraOrMissingTailIsAProblem() throws {
        let template = try template()
        let extra = compare(render(template) + "\nserver { listen 81; }\n", template)
        XCTAssertEqual(extra.map(\.verdict), [.problem])
        XCTAssertTrue(extra[0].message.contains("is not in this version's template"), extra[0].message)
        let cut = render(template).components(separatedBy: "\n").dropLast(12).joined(separator: "\n")
        let missing = compare(cut, template)
        XCTAssertEqual(missing.map(\.verdict), [.problem])
        XCTAssertTrue(missing[0].message.contains("ends before"), missing[0].message)
    }

    func testAnIncludePointingAtAnotherSocketIsAProblem() throws {
        let template = try template()
        let findings = compare(render(template, socket: "/var/lib/pushgate/pushgate.sock"), template)
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("passes requests to /var/lib/pushgate/pushgate.sock but PUSHGATE_SOCKET is \(socket)"))
    }

    func testAPlaceholderTakesOneValueThroughout() {
        var values: [String: String] = [:]
        XCTAssertTrue(NginxTemplateCheck.match("listen 127.0.0.1:@PUSHGATE_HTTP_PORT@;", "listen 127.0.0.1:8080;", values: &values))
        XCTAssertEqual(values["@PUSHGATE_HTTP_PORT@"], "8080")
        XCTAssertFalse(NginxTemplateCheck.match("return 200 @PUSHGATE_HTTP_PORT@;", "return 200 9090;", values: &values))
        XCTAssertTrue(NginxTemplateCheck.match("return 200 @PUSHGATE_HTTP_PORT@;", "return 200 8080;", values: &values))
        XCTAssertFalse(NginxTemplateCheck.match("listen 127.0.0.1:@PUSHGATE_HTTP_PORT@;", "listen 0.0.0.0:8080;", values: &values))
        XCTAssertFalse(NginxTemplateCheck.match("server unix:@PUSHGATE_SOCKET@;", "server unix:;", values: &values))
    }

    func testAMissingIncludeOrTemplateIsAProblem() throws {
        let scratch = try ScratchDirectory()
        let missing = NginxTemplateCheck(renderedPath: scratch.file("none.conf"), templatePath: DoctorFixtures.nginxTemplate, socket: socket)
        XCTAssertTrue(missing.run()[0].message.contains("no site include at"))
        try render(try template()).write(toFile: scratch.file("pushgate.conf"), atomically: true, encoding: .utf8)
        let noTemplate = NginxTemplateCheck(renderedPath: scratch.file("pushgate.conf"), templatePath: nil, socket: socket)
        XCTAssertEqual(noTemplate.run().map(\.verdict), [.problem])
        let found = NginxTemplateCheck(
            renderedPath: scratch.file("pushgate.conf"), templatePath: DoctorFixtures.nginxTemplate, socket: socket)
        XCTAssertEqual(found.run().map(\.verdict), [.ok])
    }
}
