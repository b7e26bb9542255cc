@testable import App
import Foundation
import XCTest

/// Several nodes behind one nginx: render-nginx's per-node lines pass doctor's template check,
/// and doctor finds scripts/run's configuration and worker user by itself.
final class NginxNodesTests: ScratchDirectoryTestCase {

    private func renderNginx(nodes: String?, socket: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let repository = URL(fileURLWithPath: DoctorFixtures.nginxTemplate).deletingLastPathComponent().deletingLastPathComponent()
        process.arguments = [repository.appendingPathComponent("scripts/render-nginx").path, scratch.file("run/nginx"), "18080", socket]
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHGATE_NGINX_NODES"] = nodes
        environment["PUSHGATE_NGINX_USER"] = nil
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    func testARenderingWithSeveralNodesMatchesTheTemplateAndNamesEachNode() throws {
        let socket = scratch.file("run/pushgate.sock")
        let second = scratch.file("run/pushgate-2.sock")
        let rendered = try renderNginx(nodes: "unix:\(socket) unix:\(second)", socket: socket)
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        let include = scratch.file("run/nginx/pushgate.conf")
        let text = try String(contentsOfFile: include, encoding: .utf8)
        for (number, node) in [(1, socket), (2, second)] {
            XCTAssertTrue(text.contains("upstream pushgate_node_\(number) {\n    server unix:\(node);"), text)
            XCTAssertTrue(text.contains("location = /metrics/node/\(number) {"), text)
            XCTAssertTrue(text.contains("fastcgi_pass pushgate_node_\(number);"), text)
        }
        let template = try String(contentsOfFile: DoctorFixtures.nginxTemplate, encoding: .utf8)
        let findings = NginxTemplateCheck.compare(rendered: text, template: template, renderedPath: include, socket: socket)
        XCTAssertEqual(findings.map(\.verdict), [.ok], "\(findings)")
        // The first node must still be PUSHGATE_SOCKET.
        let other = NginxTemplateCheck.compare(rendered: text, template: template, renderedPath: include, socket: second)
        XCTAssertEqual(other.map(\.verdict), [.problem], "\(other)")

        let refused = try renderNginx(nodes: "unix:\(socket) http://evil;", socket: socket)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("is neither unix:/PATH nor IPv4:PORT"), refused.stderr)
    }

    func testDoctorFindsScriptsRunsConfigurationBesideTheSocket() throws {
        let socket = scratch.file("run/pushgate.sock")
        XCTAssertEqual(try renderNginx(nodes: nil, socket: socket).status, 0)
        let found = NginxSite.locate(include: nil, workerUser: nil, socket: socket)
        XCTAssertEqual(found.include, scratch.file("run/nginx/pushgate.conf"))
        XCTAssertEqual(found.origin, "scripts/run's, beside the socket")
        // Named on the command line, the operator's choice wins.
        let named = NginxSite.locate(include: "/srv/nginx/pushgate.conf", workerUser: "nginx", socket: socket)
        XCTAssertEqual(named, NginxSite(include: "/srv/nginx/pushgate.conf", workerUser: "nginx", origin: "--nginx-conf"))
        // Nothing beside the socket: the packaged include and Debian's worker user.
        let packaged = NginxSite.locate(include: nil, workerUser: nil, socket: "/run/pushgate/pushgate.sock")
        XCTAssertEqual(packaged.include, "/etc/nginx/conf.d/pushgate.conf")
        XCTAssertEqual(packaged.workerUser, "www-data")
    }

    func testTheWorkerUserComesFromTheUserLineOrWhoStartedNginx() {
        XCTAssertEqual(NginxSite.workerUser(mainConfiguration: "# Rendered\nuser root;\nworker_processes auto;\n", owner: "root"), "root")
        XCTAssertEqual(NginxSite.workerUser(mainConfiguration: "# Rendered\n\nworker_processes auto;\n", owner: "alice"), "alice")
        XCTAssertEqual(NginxSite.workerUser(mainConfiguration: "# Rendered\n\nworker_processes auto;\n", owner: "root"), "nobody")
    }
}
