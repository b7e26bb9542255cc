import PushCore

/// Where each push goes: its token read for its app's platform, or, for a push that names
/// only its account, the token the Token Reporter stored for it; and the stored device, so a
/// dead token prunes it. One store read for a multisend's tokens, one per run naming an account.
struct Pnm2Addressing {
    struct Target: Equatable {
        var token: DeviceToken
        /// The token as the Web Push subscription it was read and checked as; nil for another
        /// platform's token and for a stored one.
        var subscription: WebPushSubscription?
        /// Nil when the store does not know the token: nothing to prune.
        var device: AddressedDevice?
    }

    let directory: any AcrobitsPushDirectory
    /// A push that names a Web Push subscription is sent only where a registration would have
    /// been stored: the endpoint allowed, the keys usable.
    let subscriptions: WebPushSubscriptionCheck

    func targets(_ pushes: [(push: Pnm2Push, app: RegisteredApp)]) throws -> [Result<Target, Pnm2Reply>] {
        var results: [Result<Target, Pnm2Reply>] = []
        results.reserveCapacity(pushes.count)
        var lookups: [(index: Int, appID: AppID, token: DeviceToken, subscription: WebPushSubscription?)] = []
        var last: (selector: String, devices: [AcrobitsChannel: AddressedDevice])?
        for (index, (push, app)) in pushes.enumerated() {
            guard let text = push.deviceToken else {
                let selector = push.selector ?? ""
                if last?.selector != selector { last = (selector, try directory.accountDevices(selector: selector)) }
                results.append(accountTarget(push, last?.devices ?? [:]))
                continue
            }
            let read = Pnm2TokenText.token(text, platform: app.platform, subscriptions: subscriptions)
            guard let token = read.token else {
                let detail =
                    read.refusal.map { "DeviceToken is refused: \($0)" }
                    ?? "DeviceToken is not \(Pnm2TokenText.describe(app.platform))"
                results.append(.failure(.badObject(detail)))
                continue
            }
            results.append(.success(Target(token: token, subscription: read.subscription, device: nil)))
            lookups.append((index, push.appID, token, read.subscription))
        }
        let devices = try directory.storedDevices(lookups.map { ($0.appID, $0.token) })
        for (lookup, device) in zip(lookups, devices) {
            results[lookup.index] = .success(
                Target(token: lookup.token, subscription: lookup.subscription, device: device))
        }
        return results
    }

    /// The account's device of the push's app; when both channels use that app, the verb's.
    private func accountTarget(
        _ push: Pnm2Push, _ devices: [AcrobitsChannel: AddressedDevice]
    ) -> Result<Target, Pnm2Reply> {
        let verbs = devices[push.verb.channel].flatMap { $0.appID == push.appID ? $0 : nil }
        guard let device = verbs ?? devices.values.first(where: { $0.appID == push.appID }) else {
            return .failure(
                .badObject("DeviceToken is required: no token of AppId \(push.appID) is stored for this Selector"))
        }
        return .success(Target(token: device.token, subscription: nil, device: device))
    }
}
