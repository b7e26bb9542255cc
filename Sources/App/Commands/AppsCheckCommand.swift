import ArgumentParser
import Foundation
import PushCore
import PushCrypto
import PushDelivery

extension AppsCommand {
    /// Proves an app's credentials against the real service (or whatever PUSHGATE_APNS_URL /
    /// PUSHGATE_FCM_URL point at) and says plainly what is wrong when they do not work.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Prove an app's credentials work (APNs: one signed request; FCM: an access token).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The app's id.") var id: String

        /// All zeros: a well-formed token no device has. APNs checks the provider token before
        /// the device token, so BadDeviceToken here means the credentials were accepted.
        static let probeToken = DeviceToken(bytes: [UInt8](repeating: 0, count: 32))

        func run() throws {
            let runtime = try Runtime(global)
            let store = try runtime.openStore()
            guard let appID = AppID(id), let app = try store.app(id: appID) else {
                throw CommandFailure("no app with id \(id) is registered")
            }
            let stack = try DeliveryStack(
            configuration: runtime.configuration, catalog: store, providerTokenArchive: store, logger: runtime.logger)
            defer { stack.stop() }
            do {
                switch app.credentials {
                case .fcmServiceAccount(let json, let projectID):
                    try checkFCM(json: json, projectID: projectID, stack: stack)
                case .apnsToken, .apnsCertificate:
                    try checkAPNs(app, stack: stack)
                case .webPush(let pem, let subject):
                    try checkWebPush(app, pem: pem, subject: subject)
                }
                record(ok: true, "the credentials were accepted", app: appID, in: store)
            } catch let failure as CommandFailure {
                record(ok: false, failure.description, app: appID, in: store)
                throw failure
            }
        }

        /// Keeps the outcome for the status page (`/status`); a failure to keep it is only
        /// reported: the check itself stands.
        private func record(ok: Bool, _ detail: String, app: AppID, in store: any Store) {
            let check = AppCheckRecord(
                appID: app, checkedAt: Int64(Date().timeIntervalSince1970), ok: ok, detail: detail)
            do {
                try store.recordAppCheck(check)
            } catch {
                FileHandle.standardError.write(Data("warning: could not keep the check's result: \(error)\n".utf8))
            }
        }

        private func checkAPNs(_ app: RegisteredApp, stack: DeliveryStack) throws {
            let probe = Notification(
                app: app, token: Self.probeToken,
                apns: APNsMessage(payload: Array(#"{"aps":{"content-available":1}}"#.utf8), pushType: .background, priority: 5))
            let result = stack.pipeline.deliver([probe])[0]
            switch result {
            case .delivered, .deadToken:
                print("ok: APNs accepted the credentials of \(app.id) (a probe to a dummy token answered: \(DeliveryResultText.describe(result)))")
            case .rejected(let status, let reason) where status == 403:
                throw CommandFailure("APNs refused the credentials of \(app.id): \(reason)")
            case .rejected(let status, let reason):
                throw CommandFailure("APNs accepted the credentials but refused the push (\(status) \(reason)): check the topic \(app.apnsTopic ?? app.id.rawValue)")
            case .retryLater(let reason, _):
                throw CommandFailure("could not get an answer from APNs: \(reason)")
            }
        }

        /// Push services answer only for a real subscription, so the check is the key's own: the
        /// `Authorization` header delivery sends, read back as a push service reads it, verifies
        /// against its `k`, the public key browsers subscribed with. (What the services last
        /// said to this app's pushes is `doctor`'s.)
        private func checkWebPush(_ app: RegisteredApp, pem: String, subject: String) throws {
            do {
                let key = try VAPIDKey(pem: pem)
                let expiresAt = Int(Date().timeIntervalSince1970) + 3600
                let token = try VAPIDToken.sign(
                    audience: "https://push.example", subject: subject, expiresAt: expiresAt, key: key)
                let header = try VAPIDToken.authorization(token: token, key: key)
                guard let claims = VAPIDAuthorization(header: header)?.verifiedClaims()?.claims,
                    claims["sub"] == .string(subject)
                else {
                    throw CommandFailure("the VAPID key of \(app.id) signs tokens its own public key does not verify")
                }
                print("ok: the VAPID key of \(app.id) signs (public key \(try key.publicKeyBase64URL()), subject \(subject))")
            } catch let error as CryptoError {
                throw CommandFailure("the stored VAPID key of \(app.id) is unusable: \(error)")
            }
        }

        private func checkFCM(json: String, projectID: String, stack: DeliveryStack) throws {
            let account: ServiceAccount
            do {
                account = try ServiceAccount(json: json)
            } catch {
                throw CommandFailure("the stored service account is unusable: \(error)")
            }
            let done = DispatchSemaphore(value: 0)
            let answer = AccessTokenAnswer()
            stack.accessTokens.accessToken(for: account) { result in
                answer.result = result
                done.signal()
            }
            done.wait()
            switch answer.result {
            case .success?:
                break
            case .failure(let error)?:
                // Only an answer from Google is a refusal; no answer says nothing of the account.
                if case .refused = error {
                    throw CommandFailure("Google refused the service account \(account.clientEmail): \(error)")
                }
                throw CommandFailure(
                    "could not get an answer from Google's token endpoint for \(account.clientEmail) "
                        + "(the account is not judged): \(error)")
            case nil:
                throw CommandFailure("no answer for \(account.clientEmail)'s access token")
            }
            print("ok: got an FCM access token for \(account.clientEmail) (project \(projectID))")
        }
    }
}

/// The access token's result, handed from the transport's thread to the waiting command.
private final class AccessTokenAnswer: @unchecked Sendable {
    // Written once before the semaphore is signalled, read after it is waited on.
    var result: Result<String, AccessTokenError>?
}
