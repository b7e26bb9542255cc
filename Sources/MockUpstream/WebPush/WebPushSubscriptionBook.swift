import Foundation
import PushCrypto
import Synchronization

/// The mock's subscriptions with their private keys, which are gone, and the messages
/// decrypted for each, shared between the event loops and the test.
final class WebPushSubscriptionBook: Sendable {
    struct Entry: Sendable {
        let subscription: MockWebPushSubscription
        let keys: ECDHKeyPair
        var isGone = false
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var messages: [MockWebPushMessage] = []
    }

    private let state = Mutex(State())

    func create(endpointPrefix: String) throws -> MockWebPushSubscription {
        let keys = try ECDHKeyPair.generate()
        let id = Base64URL.encode(try SecureRandom.bytes(18))
        let subscription = MockWebPushSubscription(
            id: id, endpoint: endpointPrefix + id, p256dh: keys.publicKey, auth: try SecureRandom.bytes(16))
        state.withLock { $0.entries[id] = Entry(subscription: subscription, keys: keys) }
        return subscription
    }

    func entry(_ id: String) -> Entry? {
        state.withLock { $0.entries[id] }
    }

    /// True when the subscription exists.
    @discardableResult
    func markGone(_ id: String, _ gone: Bool = true) -> Bool {
        state.withLock { state in
            guard state.entries[id] != nil else { return false }
            state.entries[id]?.isGone = gone
            return true
        }
    }

    func deliver(_ message: MockWebPushMessage) {
        state.withLock { $0.messages.append(message) }
    }

    var messages: [MockWebPushMessage] {
        state.withLock { $0.messages }
    }

    func clearMessages() {
        state.withLock { $0.messages.removeAll() }
    }
}
