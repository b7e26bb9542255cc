import Foundation
import Logging

/// A swift-log handler that keeps what it is given, so tests can read the log lines.
struct RecordingLogHandler: LogHandler {
    final class Store: @unchecked Sendable {
        // @unchecked: `entries` is only touched under `lock`.
        private let lock = NSLock()
        private var entries: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] = []

        func append(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata) {
            lock.lock()
            entries.append((level, message, metadata))
            lock.unlock()
        }

        var all: [(level: Logger.Level, message: String, metadata: Logger.Metadata)] {
            lock.lock()
            defer { lock.unlock() }
            return entries
        }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append(event.level, "\(event.message)", metadata.merging(event.metadata ?? [:]) { $1 })
    }

    static func logger() -> (Logger, Store) {
        let store = Store()
        return (Logger(label: "test") { _ in RecordingLogHandler(store: store) }, store)
    }
}
