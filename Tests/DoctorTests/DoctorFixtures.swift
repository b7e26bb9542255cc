import Foundation
import PushTesting
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

/// A test case with a fresh `ScratchDirectory` for each test, removed after it. XCTest keeps
/// every test case object to the end of the run, so the folder must be let go in `tearDown`:
/// held to the end, it stays behind in /tmp when the process exits.
class ScratchDirectoryTestCase: XCTestCase {
    var scratch: ScratchDirectory!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = try ScratchDirectory()
    }

    override func tearDown() {
        scratch = nil
        super.tearDown()
    }
}

enum DoctorFixtures {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
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

    /// A self-signed certificate and its key (PEM texts) valid from `start` to `end`.
    static func certificate(from start: Date, to end: Date, in directory: ScratchDirectory) throws -> (cert: String, key: String) {
        let made = try DatedCertificate.make(from: start, to: end, in: directory.url)
        return (try text(made.certificateFile), try text(made.keyFile))
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
