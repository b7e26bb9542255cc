import Foundation
import PushCore

/// The Matrix dialect's last answers in this process, newest first, for `/status`: what a
/// homeserver was told, so that an operator sees a pusher being rejected or a 502 without
/// reading the homeserver's log. In memory: each node shows its own.
public final class MatrixAnswerLog: Sendable {
    public struct Entry: Sendable, Equatable {
        public let at: Date
        public let status: Int
        public let devices: Int
        public let rejected: Int
        /// The reason of a refusal or of the first rejection, for the operator; never a pushkey.
        public let note: String
    }

    /// How many answers are kept.
    public static let capacity = 20
    private let entries = Locked<[Entry]>([])

    public init() {}

    func record(_ entry: Entry) {
        entries.withLock { entries in
            entries.insert(entry, at: 0)
            if entries.count > Self.capacity { entries.removeLast() }
        }
    }

    /// A notify refused whole: no device pushed.
    func record(_ refusal: MatrixRefusal) {
        record(Entry(at: Date(), status: refusal.status, devices: 0, rejected: 0, note: refusal.message))
    }

    public var recent: [Entry] { entries.withLock { $0 } }
}
