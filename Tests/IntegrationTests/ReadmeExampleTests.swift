import Foundation
import PushTesting
import XCTest

/// The examples of README.md, docs/api/*.md and docs/operations.md, pasted in order against a
/// fresh `scripts/run`, as the README's "Examples" section promises.
///
/// Conventions the pages follow (the README states them too):
/// - A ```` ```sh ```` block is run; any other block (```` ```console ````, ```` ```yaml ````, …) is
///   not (it starts servers, needs real credentials or another host).
/// - Every block of every page runs in one bash session with `set -eo pipefail`, in page
///   order (README.md, then docs/api/*.md by name, then docs/operations.md), so variables such
///   as `$KEY` carry over; any failing command fails the test, naming its page and line.
/// - Every command that calls `curl` must answer 2xx, unless the line right after it is a
///   comment `# → NNN …`: then it must answer exactly NNN (the last response of the command).
/// - `http://127.0.0.1:8080` is replaced by this run's port; `pushgate` is the binary under
///   test (the README's alias names the release build).
/// - scripts/run starts with the settings of the README's start line, and with APNs and FCM
///   pointed at a closed loopback port: the pages promise `500 Push service error` for the
///   test key, which that gives too, without reaching out to Apple or Google.
final class ReadmeExampleTests: XCTestCase {
    static let startLine =
        "PUSHGATE_COSPACE_FCM_APP=com.cloudsoftphone.android PUSHGATE_BRIDGE_APNS_APP=com.cloudsoftphone.app.pushkit scripts/run"

    /// A fenced ```` ```sh ```` block: its page, the line its first command is on, and its lines.
    struct Block {
        let page: String
        let line: Int
        let lines: [String]
    }

    static func pages() throws -> [String] {
        let api = PushgateInstance.repository.appendingPathComponent("docs/api")
        let names = try FileManager.default.contentsOfDirectory(atPath: api.path).filter { $0.hasSuffix(".md") }.sorted()
        return ["README.md"] + names.map { "docs/api/" + $0 } + ["docs/operations.md"]
    }

    static func blocks(of page: String) throws -> [Block] {
        let text = try String(contentsOf: PushgateInstance.repository.appendingPathComponent(page), encoding: .utf8)
        var blocks: [Block] = []
        var current: (line: Int, lines: [String])?
        var inOtherFence = false
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var open = current {
                if trimmed == "```" {
                    blocks.append(Block(page: page, line: open.line, lines: open.lines))
                    current = nil
                } else {
                    open.lines.append(line)
                    current = open
                }
            } else if inOtherFence {
                if trimmed == "```" { inOtherFence = false }
            } else if trimmed == "```sh" {
                current = (index + 2, [])
            } else if trimmed.hasPrefix("```") {
                inOtherFence = true
            }
        }
        return blocks
    }

    /// The HTTP status a `# → NNN` comment line states, if it is one.
    static func statedStatus(_ line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix("# → ") else { return nil }
        let code = trimmed.dropFirst("# → ".count).prefix(3)
        return code.count == 3 && code.allSatisfy(\.isNumber) ? String(code) : nil
    }

    /// One bash script of every block, each curl command followed by its status check.
    static func script(port: Int) throws -> String {
        var out = """
            set -eo pipefail
            __pg_headers=$(mktemp)
            trap 'rm -f "$__pg_headers"' EXIT
            pushgate() { "$EXAMPLE_PUSHGATE_BIN" "$@"; }
            curl() { command curl -D "$__pg_headers" "$@"; }
            __pg_check() {
                local got
                got=$(awk '/^HTTP\\//{ s = $2 } END { print s }' "$__pg_headers" | tr -d '\\r')
                : >"$__pg_headers"
                case "$2" in
                    2xx) [[ $got == 2?? ]] ;;
                    *) [[ $got == "$2" ]] ;;
                esac || { printf '\\n'; echo "@@ FAIL $1: HTTP status ${got:-none}, expected $2"; exit 1; }
            }

            """
        for page in try pages() {
            for block in try blocks(of: page) {
                out += "printf '\\n@@ block %s\\n' '\(block.page):\(block.line)'\n"
                var pending: (location: String, curl: Bool)?
                var command: [String] = []
                func flush(_ expected: String) {
                    if let check = pending, check.curl { out += "__pg_check '\(check.location)' \(expected)\n" }
                    pending = nil
                }
                for (offset, line) in block.lines.enumerated() {
                    let text = line.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(port)")
                    if command.isEmpty, let status = statedStatus(text) {
                        flush(status)
                        out += text + "\n"
                        continue
                    }
                    if command.isEmpty {
                        flush("2xx")
                        let trimmed = text.trimmingCharacters(in: .whitespaces)
                        if trimmed.isEmpty || trimmed.hasPrefix("#") {
                            out += text + "\n"
                            continue
                        }
                    }
                    command.append(text)
                    if !text.hasSuffix("\\") {
                        out += command.joined(separator: "\n") + "\n"
                        let words = command.joined(separator: " ")
                        pending = ("\(block.page):\(block.line + offset - command.count + 1)", words.contains("curl "))
                        command = []
                    }
                }
                flush("2xx")
            }
        }
        out += "printf '\\n@@ every example ran\\n'\n"
        return out
    }

    func testExamplesRunInOrderAgainstAFreshRun() throws {
        let readme = try String(contentsOf: PushgateInstance.repository.appendingPathComponent("README.md"), encoding: .utf8)
        XCTAssertTrue(readme.contains(Self.startLine), "README.md's start line is not the one this test starts")

        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let closed = "https://127.0.0.1:1"
        let run = try RunScript(state: state, environment: [
            "PUSHGATE_COSPACE_FCM_APP": "com.cloudsoftphone.android",
            "PUSHGATE_BRIDGE_APNS_APP": "com.cloudsoftphone.app.pushkit",
            "PUSHGATE_APNS_URL": closed, "PUSHGATE_APNS_SANDBOX_URL": closed, "PUSHGATE_FCM_URL": closed,
        ])
        defer { run.stopIfRunning() }
        try run.waitUntilServing()

        let scriptURL = state.appendingPathComponent("examples.sh")
        try Self.script(port: run.port).write(to: scriptURL, atomically: true, encoding: .utf8)
        let outputURL = state.appendingPathComponent("examples.out")
        FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: outputURL)
        let bash = Process()
        bash.executableURL = URL(fileURLWithPath: "/bin/bash")
        bash.arguments = [scriptURL.path]
        bash.currentDirectoryURL = PushgateInstance.repository
        bash.environment = run.environment.merging(["EXAMPLE_PUSHGATE_BIN": PushgateInstance.executable.path]) { _, new in new }
        bash.standardOutput = output
        bash.standardError = output
        bash.standardInput = FileHandle.nullDevice
        try bash.run()
        let deadline = Date().addingTimeInterval(300)
        while bash.isRunning, Date() < deadline { usleep(50_000) }
        if bash.isRunning { bash.terminate() }
        bash.waitUntilExit()
        try output.close()
        let text = (try? String(contentsOf: outputURL, encoding: .utf8)) ?? ""
        let lastBlock = text.components(separatedBy: "\n").last { $0.hasPrefix("@@ block ") } ?? "(none)"
        XCTAssertEqual(bash.terminationStatus, 0, "failed in \(lastBlock):\n\(text)\n--- scripts/run:\n\(run.log)")
        XCTAssertTrue(text.contains("@@ every example ran"), text)
        XCTAssertEqual(try run.stop(), 0, run.log)
    }

    /// Each dialect's page has a curl example the test above runs, and every run example names
    /// accounts with Acrobits-shaped selectors (40 hex digits, `:`, 8 hex digits).
    func testEveryDialectHasARunCurlExampleAndLongSelectors() throws {
        let dialects = ["beams", "bridge", "cospace", "pnm2", "token-reporter"]
        for dialect in dialects {
            let blocks = try Self.blocks(of: "docs/api/\(dialect).md")
            XCTAssertTrue(blocks.contains { $0.lines.contains { $0.contains("curl ") } }, "docs/api/\(dialect).md runs no curl")
        }
        let shape = try NSRegularExpression(pattern: #"(?i)selector(?:=|"\s*:\s*")([^&"'\s]*)"#)
        for page in try Self.pages() {
            for block in try Self.blocks(of: page) {
                let text = block.lines.joined(separator: "\n")
                for match in shape.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let value = String(text[Range(match.range(at: 1), in: text)!])
                    XCTAssertNotNil(
                        value.range(of: "^[0-9A-Fa-f]{40}:[0-9A-Fa-f]{8}$", options: .regularExpression),
                        "\(page):\(block.line): selector \(value) is not Acrobits-shaped")
                }
            }
        }
    }
}
