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

    /// An answer given now; a notify refused whole pushed no device.
    func record(status: Int, devices: Int = 0, rejected: Int = 0, _ note: String) {
        let entry = Entry(at: Date(), status: status, devices: devices, rejected: rejected, note: note)
        entries.withLock { entries in
            entries.insert(entry, at: 0)
            if entries.count > Self.capacity { entries.removeLast() }
        }
    }

    public var recent: [Entry] { entries.withLock { $0 } }
}
