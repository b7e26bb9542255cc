import ArgumentParser
import Foundation
import PushCore

struct SendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send", abstract: "Send one push from the shell and print the upstream's answer.",
        discussion: """
            --json is the whole APNs payload for an APNs app, the FCM message's fields (data, \
            notification, android, apns) for an FCM app, and what the service worker receives for \
            a web app. The exit status is 0 only when the push was accepted upstream.
            APNs: --push-type sends as another type than the app's, to that type's topic for the \
            app's bundle id unless --topic names one; --priority (1, 5, 10), --expiration (Unix \
            seconds, 0 for once only) and --collapse-id (at most 64 bytes) set Apple's headers, \
            each checked as Apple checks it for the push type.
            FCM: --ttl (seconds, at most four weeks), --collapse-key and --fcm-priority \
            (normal, high) set the message's android options; --ttl is a web push's TTL too.
            """)

    @OptionGroup var global: GlobalOptions
    @Option(help: "The registered app's id.") var app: String
    @Option(help: "The device token: hex (or base64) for APNs, the registration token for FCM, the subscription's JSON (or its base64) for web.") var token: String
    @Option(help: "A visible alert with this text.") var alert: String?
    @Option(help: "The payload as JSON (see above).") var json: String?
    @Flag(help: "APNs: use the sandbox.") var sandbox = false
    @OptionGroup var controls: SendControls

    func run() throws {
        guard (alert == nil) != (json == nil) else { throw CommandFailure("give either --alert TEXT or --json PAYLOAD") }
        let runtime = try Runtime(global)
        let store = try runtime.openStore()
        guard let appID = AppID(app), let registered = try store.app(id: appID) else {
            throw CommandFailure("no app with id \(app) is registered")
        }
        let deviceToken = try Self.parseToken(token, platform: registered.platform)
        let (apns, fcm, web) = try message()
        var notification = Notification(app: registered, token: deviceToken, sandbox: sandbox ? true : nil)
        switch registered.platform {
        case .apns: notification.apns = try controls.applied(to: apns, app: registered)
        case .fcm: notification.fcm = try controls.applied(to: fcm, app: registered)
        case .web: notification.web = try controls.applied(to: web, app: registered)
        }
        let stack = try DeliveryStack(
            configuration: runtime.configuration, catalog: store, providerTokenArchive: store, logger: runtime.logger)
        defer { stack.stop() }
        let result = stack.pipeline.deliver([notification])[0]
        print(DeliveryResultText.describe(result))
        if !result.isDelivered { throw ExitCode(1) }
    }

    static func parseToken(_ text: String, platform: Platform) throws -> DeviceToken {
        switch platform {
        case .apns:
            guard let token = DeviceToken.fromHex(text) ?? DeviceToken.fromBase64(text), token.isPlausible(for: .apns) else {
                throw CommandFailure("--token is not an APNs device token (64 hex digits, or base64)")
            }
            return token
        case .fcm:
            guard let token = DeviceToken.fromFCMText(text) else {
                throw CommandFailure("--token is not an FCM registration token")
            }
            return token
        case .web:
            let subscription =
                WebPushSubscription.parse(json: Array(text.utf8)) ?? WebPushSubscription.fromBeamsToken(text)
            guard let subscription else {
                throw CommandFailure("--token is not a Web Push subscription (its JSON, or the base64 of it)")
            }
            return subscription.token
        }
    }

    /// A day: long enough for a browser that is closed for the night.
    static let webTTL = 86_400

    private func message() throws -> (APNsMessage, FCMMessage, WebPushMessage) {
        if let alert {
            let apns = JSONValue.object(["aps": .object(["alert": .string(alert), "sound": .string("default")])])
            let notification = JSONValue.object(["notification": .object(["body": .string(alert)])])
            return (
                APNsMessage(payload: apns.encoded()), FCMMessage(fields: notification.objectValue ?? [:]),
                WebPushMessage(payload: notification.encoded(), ttl: Self.webTTL)
            )
        }
        guard let object = (try? JSONValue.parse(Array((json ?? "").utf8)))?.objectValue else {
            throw CommandFailure("--json must be a JSON object")
        }
        let payload = JSONValue.object(object).encoded()
        return (APNsMessage(payload: payload), FCMMessage(fields: object), WebPushMessage(payload: payload, ttl: Self.webTTL))
    }
}

/// Delivery results as an operator reads them.
enum DeliveryResultText {
    static func describe(_ result: DeliveryResult) -> String {
        switch result {
        case .delivered(let id):
            return "delivered" + (id.map { " (id \($0))" } ?? "")
        case .deadToken(let reason, _):
            return "dead token: \(reason) (the device should be forgotten)"
        case .rejected(let status, let reason):
            return "rejected (\(status)): \(reason)"
        case .retryLater(let reason, let after):
            return "not delivered, try again later: \(reason)" + (after.map { " (retry after \($0) s)" } ?? "")
        }
    }
}
