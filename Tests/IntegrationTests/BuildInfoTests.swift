import Foundation
import XCTest

/// What the built binary says it is: the version of CHANGELOG.md's first heading (through
/// scripts/lib/version) and the commit of the checkout it was built from, the same in
/// `--version`, `/metrics` and `/status`.
final class BuildInfoTests: XCTestCase {
    private func repositoryCommand(_ path: String, _ arguments: [String]) throws -> String {
        let output = try PushgateInstance.Output.of(
            path, arguments, environment: ProcessInfo.processInfo.environment, in: PushgateInstance.repository)
        XCTAssertEqual(output.status, 0, output.stderr)
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testVersionIsTheChangelogsAndTheCommitTheCheckouts() throws {
        let version = try repositoryCommand(
            PushgateInstance.repository.appendingPathComponent("scripts/lib/version").path, [])
        let commit = try repositoryCommand("/usr/bin/git", ["rev-parse", "--short=12", "HEAD"])
        let changelog = try String(
            contentsOf: PushgateInstance.repository.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        XCTAssertTrue(changelog.contains("\n## \(version) "), "scripts/lib/version reads the first heading: \(version)")

        let line = try repositoryCommand(PushgateInstance.executable.path, ["--version"])
        // The build may be of a tree with changes not committed yet: then the commit says so.
        XCTAssertTrue(
            [
                "pushgate \(version) (commit \(commit))", "pushgate \(version) (commit \(commit)-modified)",
            ].contains(line), line)

        let pushgate = try PushgateInstance()
        defer { pushgate.stop() }
        try pushgate.start()
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        let info = try XCTUnwrap(metrics.series("pushgate_build_info").first)
        XCTAssertEqual(info.labels["version"], version)
        XCTAssertTrue(line.hasSuffix("(commit \(info.labels["commit"] ?? "?"))"), "\(info.labels)")
        let status = try pushgate.client.get("/status").text
        XCTAssertTrue(status.contains(#"<b id="version">\#(version)</b>"#), status)
    }
}
