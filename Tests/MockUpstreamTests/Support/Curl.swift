import Foundation
import MockUpstream
import XCTest

/// What one curl run produced: the last response's status, headers and body, or curl's failure.
struct CurlResponse {
    var exitCode: Int32
    /// 0 when no response arrived (connection reset, TLS refused).
    var status: Int
    /// "2" or "1.1" as curl reports `%{http_version}`.
    var httpVersion: String
    /// Names lower-cased; the last value wins.
    var headers: [String: String]
    var body: String
    var stderr: String

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    /// APNs' `reason`, or Google's `error.status` / OAuth `error`.
    var reason: String? {
        json?["reason"] as? String
    }
}

/// Drives the mocks with the real `curl` binary over TLS, trusting the fixture CA: the proof
/// that an independent HTTP/2 client interoperates with them.
enum Curl {
    static let executable = "/usr/bin/curl"

    /// POSTs `body` to `url` with `headers`. `http1` forces HTTP/1.1 (ALPN http/1.1);
    /// `extraArguments` go before the URL (client certificates, `-X GET`, …).
    static func post(
        _ url: String, headers: [String: String] = [:], body: [UInt8] = [], http1: Bool = false,
        extraArguments: [String] = [], timeout: Int = 20
    ) throws -> CurlResponse {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-curl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodyFile = directory.appendingPathComponent("request")
        let headerFile = directory.appendingPathComponent("headers")
        let responseFile = directory.appendingPathComponent("response")
        try Data(body).write(to: bodyFile)

        var arguments = [
            "-sS", http1 ? "--http1.1" : "--http2", "--cacert", MockFixtures.caFile, "--max-time", String(timeout),
            "-D", headerFile.path, "-o", responseFile.path, "-w", "%{http_code} %{http_version}",
            "--data-binary", "@" + bodyFile.path,
        ]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            arguments += ["-H", "\(name): \(value)"]
        }
        arguments += extraArguments
        arguments.append(url)
        let (exitCode, stdout, stderr) = try run(arguments)

        let parts = stdout.split(separator: " ")
        var parsedHeaders: [String: String] = [:]
        let headerText = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        for line in headerText.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix("HTTP/") else { continue }
            parsedHeaders[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        return CurlResponse(
            exitCode: exitCode, status: parts.first.flatMap { Int($0) } ?? 0,
            httpVersion: parts.count > 1 ? String(parts[1]) : "",
            headers: parsedHeaders, body: (try? String(contentsOf: responseFile, encoding: .utf8)) ?? "", stderr: stderr
        )
    }

    /// Runs curl with `arguments`, returning its exit code, stdout and stderr.
    static func run(_ arguments: [String]) throws -> (Int32, String, String) {
        try runProcess(executable, arguments)
    }
}

/// Runs a program to completion, collecting its output.
func runProcess(_ executable: String, _ arguments: [String]) throws -> (Int32, String, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    // Read before waiting: a full pipe would otherwise block the child forever.
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
