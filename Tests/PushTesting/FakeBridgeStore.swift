import PushCore

/// Subscriptions in memory: (app, token, selector) links and the pushes queued.
public final class FakeBridgeStore: BridgeSubscriptionStore, @unchecked Sendable {
    public init() {}
    public struct Link: Hashable {
        public var appID: AppID
        public var token: DeviceToken
        public var selector: String

        public init(appID: AppID, token: DeviceToken, selector: String) {
            self.appID = appID
            self.token = token
            self.selector = selector
        }
    }
    public var links: [Link] = []
    public var platforms: [AppID: Platform] = [:]
    public var queued: [(message: OutboxMessage, tokens: [DeviceToken])] = []
    public var failing = false
    public struct Broken: Error {}

    public func subscribe(appID: AppID, token: DeviceToken, reportedToken: String, selector: String) throws -> Bool {
        if failing { throw Broken() }
        let link = Link(appID: appID, token: token, selector: selector)
        guard !links.contains(link) else { return false }
        links.append(link)
        return true
    }

    public func unsubscribe(appID: AppID, token: DeviceToken, selector: String) throws -> Bool {
        if failing { throw Broken() }
        let before = links.count
        links.removeAll { $0 == Link(appID: appID, token: token, selector: selector) }
        return links.count < before
    }

    public func enqueueTopicPush(
        _ message: OutboxMessage, subscribedToAnyOf selectors: [String], within apps: Set<AppID>?
    ) throws -> ScopedFanOut {
        if failing { throw Broken() }
        var tokens: [DeviceToken] = []
        var leftOut = 0
        for link in links where selectors.contains(link.selector) && !tokens.contains(link.token) {
            switch platforms[link.appID] {
            case .apns where message.apns != nil, .fcm where message.fcm != nil:
                if apps?.contains(link.appID) ?? true { tokens.append(link.token) } else { leftOut += 1 }
            default: break
            }
        }
        if !tokens.isEmpty { queued.append((message, tokens)) }
        return ScopedFanOut(queued: tokens.count, leftOut: leftOut)
    }
}
