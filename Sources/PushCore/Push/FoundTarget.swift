/// The app and Web Push subscription a dialect found for a push (`Notification.app`,
/// `Notification.subscription`), shared by reference among the push's copies. Equal when
/// what they hold is equal, so that pushes compare by content.
final class FoundTarget: Sendable, Equatable {
    let app: RegisteredApp
    let subscription: WebPushSubscription?

    init(app: RegisteredApp, subscription: WebPushSubscription?) {
        self.app = app
        self.subscription = subscription
    }

    static func == (lhs: FoundTarget, rhs: FoundTarget) -> Bool {
        lhs === rhs || (lhs.app == rhs.app && lhs.subscription == rhs.subscription)
    }
}
