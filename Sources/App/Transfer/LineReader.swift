import Foundation

/// The lines of a file descriptor, read 64 KiB at a time, without their line breaks. Memory
/// holds one chunk and the line being read, however long the input.
final class LineReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var isAtEnd = false
    /// Bytes read so far, for a progress line.
    private(set) var bytesRead: Int64 = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line; nil at the end of the input. A last line without a line break counts.
    func next() throws -> Substring? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Self.text(buffer[start..<newline])
                start = newline + 1
                return line
            }
            if isAtEnd {
                guard start < buffer.count else { return nil }
                let line = Self.text(buffer[start...])
                start = buffer.count
                return line
            }
            try fill()
        }
    }

    /// A line's text, without the carriage return of a file that went through Windows.
    private static func text(_ bytes: ArraySlice<UInt8>) -> Substring {
        var bytes = bytes
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        return Substring(String(decoding: bytes, as: UTF8.self))
    }

    private func fill() throws {
        buffer.removeFirst(start)
        start = 0
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CommandFailure("cannot read the input: \(String(cString: strerror(errno)))")
            }
            if count == 0 {
                isAtEnd = true
            } else {
                buffer.append(contentsOf: chunk[..<count])
                bytesRead += Int64(count)
            }
            return
        }
    }
}
