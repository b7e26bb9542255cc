import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MockUpstream
import PushTesting
import XCTest

/// Several `pushgate serve` nodes on one PostgreSQL schema behind one nginx, as an operator
/// runs a pair: each node has its own socket and log, and nginx's `upstream` lists every
/// socket, so requests land on either node. Needs PUSHGATE_TEST_DATABASE_URL (the nodes share
/// a database; SQLite is one machine's).
final class PushgateCluster {
    /// One `pushgate serve` of the cluster.
    final class Node {
        let name: String
        let socket: String
        let log: URL
        fileprivate(set) var process: Process?
        var isServing: Bool { process?.isRunning ?? false }

        fileprivate init(name: String, directory: URL) {
            self.name = name
            socket = directory.appendingPathComponent("run/\(name).sock").path
            log = directory.appendingPathComponent("\(name).log")
        }

        /// Everything the node logged, every run of it.
        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    }

    let directory: URL
    let port: Int
    let nodes: [Node]
    private let schema: String
    private let baseURL: String
    private let extraEnvironment: [String: String]
    private var nginx: NginxProcess?

    /// Skips the test when no PostgreSQL is given. Makes the schema and migrates it; starts
    /// nothing (`start()`).
    init(nodes count: Int = 2, environment: [String: String] = [:]) throws {
        let base = ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? ""
        try XCTSkipIf(base.isEmpty, "several nodes share a PostgreSQL: needs PUSHGATE_TEST_DATABASE_URL (scripts/test's PostgreSQL pass)")
        baseURL = base
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-cluster-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("run"), withIntermediateDirectories: true)
        // nginx's workers pass these folders to reach the sockets.
        chmod(directory.path, 0o755)
        chmod(directory.appendingPathComponent("run").path, 0o755)
        port = try freeLoopbackPort()
        let folder = directory
        nodes = (1...count).map { Node(name: "node\($0)", directory: folder) }
        schema = "cluster_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        extraEnvironment = environment
        try psql("CREATE SCHEMA \(schema)")
        let migrate = try cli(["migrate"])
        guard migrate.status == 0 else { throw PushgateInstance.Failure("pushgate migrate failed: \(migrate.stderr)") }
    }

    /// The URL every node and the CLI get: the test server's, with the cluster's schema first
    /// on the search path.
    var databaseURL: String {
        baseURL + (baseURL.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
    }

    private func environment(socket: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
        environment["PUSHGATE_DATABASE_URL"] = databaseURL
        environment["PUSHGATE_SOCKET"] = socket
        environment["PUSHGATE_THREADS"] = "8"
        // Tests create many devices from one loopback address; the quota's own tests set it lower.
        environment["PUSHGATE_NEW_DEVICES_PER_HOUR"] = "100000"
        environment["PUSHGATE_DATABASE_POOL"] = "4"
        // The socket is 0660: nginx's workers reach it through its group.
        if let group = NginxProcess.workerGroup { environment["PUSHGATE_SOCKET_GROUP"] = group }
        for (key, value) in extraEnvironment { environment[key] = value }
        return environment
    }

    /// Starts the nodes named (all by default) and nginx in front of every node's socket, and
    /// waits until each started node has its socket and nginx answers through one of them.
    func start(nodes started: [Node]? = nil) throws {
        for node in started ?? nodes { try startNode(node, waitThroughNginx: false) }
        // One worker: it sends requests to the upstream's servers in turn, so consecutive
        // requests alternate between the nodes that are up.
        nginx = try NginxProcess(
            prefix: directory.appendingPathComponent("nginx"), port: port, socketPath: nodes[0].socket,
            maxBody: "2097152", workers: 1
        ) { prefix in
            let conf = prefix.appendingPathComponent("pushgate.conf")
            let text = try String(contentsOf: conf, encoding: .utf8)
            let one = "    server unix:\(self.nodes[0].socket);"
            guard text.contains(one) else { throw PushgateInstance.Failure("no `\(one)` in the rendered pushgate.conf") }
            let every = self.nodes.map { "    server unix:\($0.socket);" }.joined(separator: "\n")
            try text.replacingOccurrences(of: one, with: every).write(to: conf, atomically: true, encoding: .utf8)
        }
        try waitFor("pushgate through nginx on port \(port)") { (try? self.client.get("/healthz").status) == 200 }
    }

    /// Starts `node` (again, after `kill(_:)`), appending to its log.
    func startNode(_ node: Node, waitThroughNginx: Bool = true) throws {
        try? FileManager.default.removeItem(atPath: node.socket)
        if !FileManager.default.fileExists(atPath: node.log.path) {
            FileManager.default.createFile(atPath: node.log.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: node.log)
        handle.seekToEndOfFile()
        let process = Process()
        process.executableURL = PushgateInstance.executable
        process.arguments = ["serve"]
        process.environment = environment(socket: node.socket)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        node.process = process
        try waitFor("\(node.name)'s socket") {
            guard process.isRunning else { return false }
            return FileManager.default.fileExists(atPath: node.socket)
        }
        if waitThroughNginx, nginx != nil {
            try waitFor("pushgate through nginx") { (try? self.client.get("/healthz").status) == 200 }
        }
    }

    /// `kill -9` of `node`, as a machine dying: no shutdown code runs.
    func kill(_ node: Node) {
        guard let process = node.process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: node.socket)
    }

    func stop() {
        nginx?.stop()
        nginx = nil
        for node in nodes {
            if let process = node.process, process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
        try? psql("DROP SCHEMA IF EXISTS \(schema) CASCADE")
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var client: HTTPClient { HTTPClient(port: port) }

    /// Every node's log, for failure messages.
    var logs: String {
        nodes.map { "--- \($0.name)\n\($0.logText.suffix(4000))" }.joined(separator: "\n")
    }

    /// `pushgate ARGS` against the shared database: what an operator runs on any node.
    func cli(_ arguments: [String], stdin: String? = nil) throws -> PushgateInstance.Output {
        try run(PushgateInstance.executable.path, arguments, stdin: stdin)
    }

    /// `apps add` of an APNs app signing with the key the mock APNs trusts.
    func addMockAPNsApp(id: String, _ extra: [String] = []) throws {
        let added = try cli(
            [
                "apps", "add", "--id", id, "--platform", "apns", "--team-id", MockFixtures.apnsTeamID,
                "--key-id", MockFixtures.apnsKeyID, "--key-file", MockFixtures.apnsKeyFile,
            ] + extra)
        guard added.status == 0 else { throw PushgateInstance.Failure("apps add \(id) failed: \(added.stderr)") }
    }

    private func run(_ path: String, _ arguments: [String], stdin: String? = nil) throws -> PushgateInstance.Output {
        try .of(path, arguments, environment: environment(socket: nodes[0].socket), stdin: stdin)
    }

    private func psql(_ command: String) throws {
        let output = try run("/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", baseURL, "-c", command])
        guard output.status == 0 else { throw PushgateInstance.Failure("psql \(command) failed: \(output.stderr)") }
    }

    /// The answer of one SQL query in the cluster's schema, as psql prints it unaligned.
    func query(_ sql: String) throws -> String {
        let output = try run(
            "/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", databaseURL, "-c", sql])
        guard output.status == 0 else { throw PushgateInstance.Failure("psql \(sql) failed: \(output.stderr)") }
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func waitFor(_ what: String, timeout: TimeInterval = 30, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return }
            usleep(20_000)
        }
        throw PushgateInstance.Failure("timed out waiting for \(what):\n\(logs)")
    }
}
