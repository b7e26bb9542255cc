import Foundation
import Logging
import PushCore

/// Log lines to standard error, one `write(2)` each, in the layout of swift-log's
/// `StreamLogHandler` (`2026-11-22T11:46:08+0000 info pushgate: key=value [Module] message`).
/// Written for the request path: `StreamLogHandler` formats the time with `strftime` and
/// flushes a locked `FILE*` on every line, a large share of a cheap request's CPU.
/// Here the timestamp text is reused within its second and a line is a single system call,
/// which the kernel keeps whole for lines up to PIPE_BUF when stderr is a pipe. Control
/// characters in a message or a metadata value are escaped (`LogText`): one event, one line.
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level
    var metadataProvider: Logger.MetadataProvider?
    /// The request id every request's logger carries (`Router.logger(for:)`), kept apart from
    /// the dictionary: a dictionary of one entry would be allocated and hashed for each
    /// request, and most requests log nothing at the level set.
    private var requestID: Logger.Metadata.Value?
    private var otherMetadata: Logger.Metadata = [:]
    private static let requestIDKey = "request-id"
    private let label: String
    private let fileDescriptor: Int32

    init(label: String, level: Logger.Level, fileDescriptor: Int32 = STDERR_FILENO) {
        self.label = label
        self.logLevel = level
        self.fileDescriptor = fileDescriptor
    }

    var metadata: Logger.Metadata {
        get {
            guard let requestID else { return otherMetadata }
            var all = otherMetadata
            all[Self.requestIDKey] = requestID
            return all
        }
        set {
            requestID = newValue[Self.requestIDKey]
            otherMetadata = newValue
            otherMetadata[Self.requestIDKey] = nil
        }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { key == Self.requestIDKey ? requestID : otherMetadata[key] }
        set {
            if key == Self.requestIDKey {
                requestID = newValue
            } else {
                otherMetadata[key] = newValue
            }
        }
    }

    func log(event: LogEvent) {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line += TimestampText.shared.current().utf8
        line.append(UInt8(ascii: " "))
        line += event.level.rawValue.utf8
        line.append(UInt8(ascii: " "))
        line += label.utf8
        line.append(UInt8(ascii: ":"))
        appendMetadata(event.metadata, to: &line)
        line += " [".utf8
        line += event.source.utf8
        line += "] ".utf8
        // What callers sent (paths, reasons quoting their values) never breaks the line.
        LogText.append(event.message.description, to: &line)
        if let error = event.error {
            line += " error=".utf8
            LogText.append("\(error)", to: &line)
        }
        line.append(UInt8(ascii: "\n"))
        line.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return  // nowhere to report a failing stderr
                }
            }
        }
    }

    /// Most lines carry no metadata but the request id (a request's own line passes it
    /// explicitly): those are written without merging and sorting dictionaries.
    private func appendMetadata(_ explicit: Logger.Metadata?, to line: inout [UInt8]) {
        if metadataProvider == nil, otherMetadata.isEmpty {
            guard let explicit, !explicit.isEmpty else {
                if let requestID { Self.append(Self.requestIDKey, requestID, to: &line) }
                return
            }
            if explicit.count == 1, let entry = explicit.first, requestID == nil || entry.key == Self.requestIDKey {
                Self.append(entry.key, entry.value, to: &line)
                return
            }
        }
        let merged = mergedMetadata(explicit)
        // Sorted so that a key is always in the same place.
        for key in merged.keys.sorted() {
            Self.append(key, merged[key]!, to: &line)
        }
    }

    private static func append(_ key: String, _ value: Logger.Metadata.Value, to line: inout [UInt8]) {
        line.append(UInt8(ascii: " "))
        line += key.utf8
        line.append(UInt8(ascii: "="))
        if case .string(let text) = value {
            LogText.append(text, to: &line)
        } else {
            LogText.append("\(value)", to: &line)
        }
    }

    private func mergedMetadata(_ explicit: Logger.Metadata?) -> Logger.Metadata {
        guard metadataProvider != nil || !(explicit?.isEmpty ?? true) else { return metadata }
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit { merged.merge(explicit) { _, new in new } }
        return merged
    }
}

/// The local time as `2026-11-22T11:46:08+0000`, formatted once per second for all threads.
final class TimestampText: @unchecked Sendable {
    static let shared = TimestampText()
    // @unchecked: both fields are only touched under `lock`.
    private let lock = NSLock()
    private var second: time_t = -1
    private var text = ""

    func current() -> String {
        var now = time(nil)
        lock.lock()
        defer { lock.unlock() }
        if now != second {
            var parts = tm()
            localtime_r(&now, &parts)
            var buffer = [CChar](repeating: 0, count: 32)
            let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
            text = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            second = now
        }
        return text
    }
}
