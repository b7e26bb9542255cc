import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// What the doctor tests build on: a scratch folder, a listening Unix socket file, the
/// repository's files, and certificates made with the real `openssl`.
final class ScratchDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-doctor-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o755)
    }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

enum DoctorFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let sql = repository.appendingPathComponent("sql")
    static let nginxTemplate = repository.appendingPathComponent("nginx/pushgate.conf").path
    static let cryptoFixtures = repository.appendingPathComponent("Tests/PushCryptoTests/Fixtures")

    static func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    /// A Unix socket file bound at `path` (as serve leaves one); the descriptor is returned
    /// to be closed by the caller.
    static func bindSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else { throw Failure("bind \(path): \(String(cString: strerror(errno)))") }
        return descriptor
    }

    /// A self-signed certificate and its key (PEM) valid from `start` to `end`, made by
    /// `openssl ca`, which, unlike `openssl req -x509`, takes any validity period, past ones too.
    static func certificate(from start: Date, to end: Date, in directory: ScratchDirectory) throws -> (cert: String, key: String) {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMddHHmmss'Z'"
        let folder = directory.url.appendingPathComponent("ca-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data().write(to: folder.appendingPathComponent("index.txt"))
        try "[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\nnew_certs_dir = .\nrand_serial = yes\ndefault_md = sha256\npolicy = p\n[p]\ncommonName = supplied\n"
            .write(to: folder.appendingPathComponent("ca.cnf"), atomically: true, encoding: .utf8)
        try run(
            ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem", "-out", "req.csr",
             "-subj", "/CN=Apple Push Services: com.example.app"], in: folder)
        try run(
            ["ca", "-config", "ca.cnf", "-selfsign", "-keyfile", "key.pem", "-in", "req.csr", "-out", "cert.pem", "-batch", "-notext",
             "-startdate", formatter.string(from: start), "-enddate", formatter.string(from: end)], in: folder)
        return (try text(folder.appendingPathComponent("cert.pem")), try text(folder.appendingPathComponent("key.pem")))
    }

    private static func run(_ arguments: [String], in folder: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure("openssl \(arguments[0]) failed: \(text)") }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
