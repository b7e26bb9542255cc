import Foundation
import XCTest

@testable import FastCGI

/// The /proc tables the connection count reads are read whole, however many sockets the host
/// has (Foundation's `String(contentsOfFile:)` stopped after ~4 KB of them).
final class OpenConnectionsTests: XCTestCase {
    func testAProcTableIsReadPastItsFirstPage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var descriptors: [Int32] = []
        defer {
            for descriptor in descriptors { close(descriptor) }
            try? FileManager.default.removeItem(at: folder)
        }
        // Enough bound sockets that /proc/net/unix is far longer than one page.
        var paths: [String] = []
        for index in 0..<100 {
            let path = folder.appendingPathComponent("s\(index).sock").path
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            descriptors.append(descriptor)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (offset, byte) in path.utf8.enumerated() { buffer[offset] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            XCTAssertEqual(bound, 0)
            paths.append(path)
        }
        let table = try XCTUnwrap(OpenConnections.readWhole("/proc/net/unix"))
        XCTAssertGreaterThan(table.utf8.count, 8192)
        for path in paths {
            XCTAssertTrue(table.contains(path), "\(path) is missing from what was read")
        }
    }
}
