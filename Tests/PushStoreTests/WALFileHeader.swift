import Foundation
import XCTest

extension StoreTestCase {
    /// The checkpoint sequence number in the WAL file's header (bytes 12–15, big-endian):
    /// SQLite increments it each time the WAL starts over, so it tells that a restart happened
    /// whatever size the file reached.
    func walCheckpointSequence() throws -> UInt32 {
        let header = try FileHandle(forReadingFrom: URL(fileURLWithPath: databasePath + "-wal"))
        defer { try? header.close() }
        let bytes = [UInt8](try header.read(upToCount: 16) ?? Data())
        guard bytes.count == 16 else { throw CocoaError(.fileReadCorruptFile) }
        return bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
