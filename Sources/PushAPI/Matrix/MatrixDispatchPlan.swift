import Logging
import PushCore

/// What a notify does for each of its devices, decided before anything is sent: reject its
/// pushkey now (no such app, an app not open to Matrix, a malformed pushkey or default payload), send nothing (nothing
/// to show, a push service not allowed), or push. The apps and the stored devices are read
/// once for the whole notify; each push carries its app (and a Web Push one its subscription),
/// so that delivery reads neither again.
struct MatrixDispatchPlan: Sendable {
    enum Step: Sendable, Equatable {
        case reject(MatrixRejection)
        case skip
        /// The push's place in `batch`.
        case push(Int)
    }

    let pushkeys: [String]
    let steps: [Step]
    let batch: [Notification]

    init(
        _ notification: MatrixNotification, apps: any AppCatalog, directory: any AcrobitsPushDirectory,
        webPushSubscriptions: WebPushSubscriptionCheck, logger: Logger
    ) throws {
        var catalog: [String: RegisteredApp?] = [:]
        var steps: [Step] = []
        var batch: [Notification] = []
        var lookups: [(appID: AppID, token: DeviceToken)] = []
        for device in notification.devices {
            if catalog[device.appID] == nil {
                catalog[device.appID] = .some(try AppID(device.appID).flatMap { try apps.app(id: $0) })
            }
            guard let app = catalog[device.appID] ?? nil else {
                logger.info("notify for app_id \(LogText.escaped(String(device.appID.prefix(200)))), which no registered app has: pushkey rejected")
                steps.append(.reject(.unknownApp))
                continue
            }
            // A closed app is answered as an unknown one, word for word: a homeserver's user
            // learns nothing of which apps exist, and the pusher is dropped.
            guard app.openToMatrix else {
                logger.info("notify for app_id \(app.id), which is not open to Matrix (apps add --matrix): pushkey rejected")
                steps.append(.reject(.closedApp))
                continue
            }
            let defaultPayload: [String: JSONValue]
            var push: Notification
            switch (device.defaultPayload, MatrixPushkey.push(to: device, app: app)) {
            case (.failure(let rejection), _), (_, .failure(let rejection)):
                logger.info("notify for \(app.id): pushkey rejected: \(rejection)")
                steps.append(.reject(rejection))
                continue
            case (.success(let payload), .success(let addressed)):
                defaultPayload = payload
                push = addressed
            }
            switch app.platform {
            case .apns:
                push.apns = MatrixAPNsPayload.message(notification, defaultPayload: defaultPayload, app: app)
            case .fcm:
                push.fcm = MatrixFCMPayload.message(notification, defaultPayload: defaultPayload)
            case .web:
                if let subscription = push.subscription {
                    if let refusal = webPushSubscriptions.endpoints.refusal(of: subscription.endpoint) {
                        // As Sygnal's allowed_endpoints: dropped, the pushkey not rejected.
                        logger.warning("notify for \(app.id) not sent: \(refusal)")
                        steps.append(.skip)
                        continue
                    }
                    if let refusal = webPushSubscriptions.refusal(of: subscription) {
                        // A key no push can be encrypted to: it can never work.
                        logger.info("notify for \(app.id): pushkey rejected: \(refusal)")
                        steps.append(.reject(.malformedPushkey(refusal)))
                        continue
                    }
                }
                push.web = MatrixWebPushPayload.message(notification, defaultPayload: defaultPayload)
            }
            guard push.apns != nil || push.fcm != nil || push.web != nil else {
                steps.append(.skip)  // nothing to show and no badge
                continue
            }
            steps.append(.push(batch.count))
            batch.append(push)
            lookups.append((app.id, push.token))
        }
        // The stored devices, so that a dead pushkey prunes the device it was stored as.
        for (index, device) in try directory.storedDevices(lookups).enumerated() {
            guard let device else { continue }
            batch[index].deviceID = device.id
            batch[index].sandbox = device.sandbox
        }
        pushkeys = notification.devices.map(\.pushkey)
        self.steps = steps
        self.batch = batch
    }

    /// The answer once the batch's results are in (in the batch's order).
    func outcome(delivering results: [DeliveryResult], logger: Logger? = nil) -> MatrixOutcome {
        var rejected: [String] = []
        var firstReason: String?
        for (pushkey, step) in zip(pushkeys, steps) {
            let rejection: MatrixRejection
            switch step {
            case .skip:
                continue
            case .reject(let reason):
                rejection = reason
            case .push(let index):
                let push = batch[index]
                switch results[index] {
                case .delivered:
                    continue
                case .deadToken(let reason, _):
                    rejection = .dead(reason)
                case .rejected(400, "TopicDisallowed"):
                    // Sygnal rejects it with the dead tokens (apnspushkin.py TOKEN_ERRORS).
                    rejection = .dead("TopicDisallowed")
                case .rejected(let status, let reason):
                    logger?.info("push to \(push.appID) (\(push.token)) refused by the upstream: \(status) \(reason)")
                    return .failed(.upstreamFailed("\(push.appID): the upstream refused it (\(status) \(reason))"))
                case .retryLater(let reason, _):
                    logger?.info("push to \(push.appID) (\(push.token)) not sent: \(reason)")
                    return .failed(.upstreamFailed("\(push.appID): the upstream is unavailable (\(reason))"))
                }
            }
            rejected.append(pushkey)
            if firstReason == nil { firstReason = rejection.description }
        }
        return .answered(rejected: rejected, firstReason: firstReason)
    }
}

/// What a homeserver is told about a notify.
enum MatrixOutcome: Equatable {
    /// 200 `{"rejected": […]}`; `firstReason` for the operator.
    case answered(rejected: [String], firstReason: String?)
    /// Not the pushkeys' fault: 502, and the homeserver tries again later.
    case failed(MatrixRefusal)
}
