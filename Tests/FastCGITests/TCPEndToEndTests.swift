import Foundation
import Glibc
import PushTesting
import XCTest

@testable import FastCGI

/// The responder listening on TCP (`PUSHGATE_LISTEN`) with the real nginx in front, its
/// upstream pointing at `127.0.0.1:PORT` as an nginx on another host would.
final class TCPEndToEndTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: FastCGIServer!
    private var nginx: NginxProcess!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        let address = try XCTUnwrap(TCPListenAddress("127.0.0.1:\(try freeLoopbackPort())"))
        let socketPath = directory.path + "/run/pushgate.sock"
        server = FastCGIServer(
            configuration: FastCGIConfiguration(socketPath: socketPath, threadCount: 2, tcpAddress: address))
        let (logger, _) = RecordingLogHandler.logger()
        try server.start(makeHandler: { EchoHandler(thread: $0) }, logger: logger)
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath), "listening on TCP makes no socket file")
        nginx = try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: socketPath, maxBody: "64k", workers: 1
        ) { prefix in
            let conf = prefix.appendingPathComponent("pushgate.conf")
            let text = try String(contentsOf: conf, encoding: .utf8)
            let upstream = "server unix:\(socketPath);"
            guard text.contains(upstream) else { throw TemplateChanged(upstream: upstream) }
            try text.replacingOccurrences(of: upstream, with: "server \(address);").write(to: conf, atomically: true, encoding: .utf8)
        }
    }

    override func tearDown() {
        nginx?.stop()
        server?.stop()
        nginx = nil
        server = nil
        directory = nil
    }

    func testRequestsReachTheResponderOverTCP() throws {
        let client = HTTPClient(port: nginx.port, timeoutSeconds: 10)
        for n in 0..<5 {
            let response = try client.request("POST", "/echo/\(n)?q=\(n)", body: Array("body \(n)".utf8))
            XCTAssertEqual(response.status, 200, response.text)
            let echo = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            XCTAssertEqual(echo["path"] as? String, "/echo/\(n)")
            XCTAssertEqual(echo["query"] as? String, "q=\(n)")
            XCTAssertEqual(echo["body"] as? String, "body \(n)")
        }
    }
}

/// The template no longer names its upstream the way this test rewrites it.
private struct TemplateChanged: Error, CustomStringConvertible {
    let upstream: String
    var description: String { "no `\(upstream)` in the rendered pushgate.conf" }
}
