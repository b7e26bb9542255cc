import Foundation
import Logging

/// A swift-log handler that keeps what it is given, so tests can read the log lines.
public struct RecordingLogHandler: LogHandler {
    public final class Store: @unchecked Sendable {
        // @unchecked: `entries` is only touched under `lock`.
        private let lock = NSLock()
        private var entries: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []

        public func append(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) {
            lock.lock()
            entries.append((level, message, metadata))
            lock.unlock()
        }

        public var all: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] {
            lock.lock()
            defer { lock.unlock() }
            return entries
        }
    }

    public let store: Store
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        store.append(event.level, "\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })
    }

    public static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in RecordingLogHandler(store: store) }, store)
    }
}
