import Foundation
import PushCore
import PushCrypto

/// What an operator asked `apps add` for, checked into a `RegisteredApp`. Every refusal names
/// the option or file and what is wrong with it.
struct AppRegistration {
    var id: String
    var platform: String
    var teamID: String?
    var keyID: String?
    var keyFile: String?
    var topic: String?
    var pushType: String?
    var sandbox: Bool
    var serviceAccountFile: String?
    var appKey: String?
    var certificateFile: String? = nil
    var certificateKeyFile: String? = nil
    var certificatePassword: String? = nil
    var vapidSubject: String? = nil
    var vapidKeyFile: String? = nil
    /// Whether Matrix homeservers may push to it (`--matrix`).
    var openToMatrix = false

    func validated() throws -> RegisteredApp {
        guard let appID = AppID(id) else {
            throw CommandFailure("--id \(id) is not a valid app id (letters, digits, '.', '_', '-'; at most 200)")
        }
        let key = try appKey.map(Self.validAppKey)
        var app: RegisteredApp
        switch Platform(dialectName: platform) {
        case .apns:
            app = try apns(appID, appKey: key)
        case .fcm:
            app = try fcm(appID, appKey: key)
        case .web:
            app = try web(appID, appKey: key)
        case nil:
            throw CommandFailure("--platform must be apns, fcm or web, not \(platform)")
        }
        app.openToMatrix = openToMatrix
        return app
    }

    /// Web Push: the VAPID key from --vapid-key-file, or a new one, and the contact URL.
    private func web(_ appID: AppID, appKey: String?) throws -> RegisteredApp {
        try Self.refuseGiven(
            [
                (teamID, "--team-id"), (keyID, "--key-id"), (keyFile, "--key-file"), (topic, "--topic"),
                (pushType, "--push-type"), (serviceAccountFile, "--service-account"), (certificateFile, "--cert-file"),
            ], "is not for --platform web")
        if sandbox { throw CommandFailure("--sandbox is for --platform apns") }
        guard let vapidSubject else {
            throw CommandFailure("--vapid-subject is required for a web app: mailto:you@example.com or an https URL push services can reach you at")
        }
        guard Self.isValidVAPIDSubject(vapidSubject) else {
            throw CommandFailure("--vapid-subject \(vapidSubject) is not a mailto: address or an https: URL")
        }
        let pem: String
        if let vapidKeyFile {
            pem = try OptionFile.text(vapidKeyFile, option: "--vapid-key-file")
            do {
                _ = try VAPIDKey(pem: pem)
            } catch {
                throw CommandFailure("--vapid-key-file \(vapidKeyFile): \(error)")
            }
        } else {
            pem = try VAPIDKey.generate().pem()
        }
        return RegisteredApp(
            id: appID, credentials: .webPush(vapidPrivateKeyPEM: pem, subject: vapidSubject), appKey: appKey)
    }

    /// RFC 8292 §2.1: a `mailto:` or `https:` URI; Apple refuses a push without one.
    static func isValidVAPIDSubject(_ subject: String) -> Bool {
        let bytes = Array(subject.utf8)
        guard bytes.count <= 256, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return false }
        if subject.hasPrefix("mailto:") {
            let address = subject.dropFirst("mailto:".count)
            guard let at = address.firstIndex(of: "@") else { return false }
            return at != address.startIndex && address.index(after: at) != address.endIndex
        }
        return WebPushEndpoint(subject) != nil
    }

    private func apns(_ appID: AppID, appKey: String?) throws -> RegisteredApp {
        if serviceAccountFile != nil { throw CommandFailure("--service-account is for --platform fcm") }
        try Self.refuseGiven([(vapidSubject, "--vapid-subject"), (vapidKeyFile, "--vapid-key-file")], "is for --platform web")
        let credentials = certificateFile != nil ? try certificateCredentials() : try tokenCredentials()
        let type = try pushType.map(Self.pushType) ?? .alert
        // The app id names the bundle id; each push type's topic is made from it
        // (`APNsPushType.topic(bundleID:)`), except mdm's, which only the MDM certificate gives.
        guard let topic = self.topic ?? type.topic(bundleID: appID.rawValue) else {
            throw CommandFailure("--push-type mdm needs --topic: the topic in the MDM push certificate (its subject's UID)")
        }
        guard Self.isValidTopic(topic) else {
            throw CommandFailure("--topic \(topic) is not a valid APNs topic (a bundle id: letters, digits, '.', '-', '_')")
        }
        try Self.requireTopic(topic, for: type)
        return RegisteredApp(
            id: appID, credentials: credentials, apnsTopic: topic, apnsPushType: type, sandbox: sandbox, appKey: appKey)
    }

    /// Apple refuses a push whose topic lacks its type's suffix; so does `apps add`, at once.
    static func requireTopic(_ topic: String, for type: APNsPushType) throws {
        guard !type.accepts(topic: topic), let suffix = type.topicSuffix else { return }
        throw CommandFailure(
            "--topic \(topic) does not end with \(suffix) after the bundle id, which APNs requires of \(type.rawValue) pushes")
    }

    static func pushType(_ name: String) throws -> APNsPushType {
        guard let type = APNsPushType(rawValue: name) else {
            throw CommandFailure("--push-type must be one of \(APNsPushType.names), not \(name)")
        }
        return type
    }

    /// Token-based auth: the .p8 key with its team and key ids.
    private func tokenCredentials() throws -> AppCredentials {
        guard let teamID else { throw CommandFailure("--team-id is required for an APNs app (or --cert-file)") }
        guard let keyID else { throw CommandFailure("--key-id is required for an APNs app") }
        guard let keyFile else { throw CommandFailure("--key-file is required for an APNs app (the AuthKey_….p8 from Apple)") }
        try Self.refuseGiven(
            [(certificateKeyFile, "--cert-key"), (certificatePassword, "--cert-password-file")], "goes with --cert-file")
        try Self.requireAppleIdentifier(teamID, option: "--team-id")
        try Self.requireAppleIdentifier(keyID, option: "--key-id")
        let pem = try OptionFile.text(keyFile, option: "--key-file")
        do {
            _ = try APNsSigningKey(pem: pem)
        } catch {
            throw CommandFailure("--key-file \(keyFile): \(error)")
        }
        return .apnsToken(teamID: teamID, keyID: keyID, privateKeyPEM: pem)
    }

    /// Certificate-based auth: a PEM certificate with --cert-key, or a .p12 holding both.
    private func certificateCredentials() throws -> AppCredentials {
        guard let certificateFile else { throw CommandFailure("--cert-file is required") }
        try Self.refuseGiven(
            [(teamID, "--team-id"), (keyID, "--key-id"), (keyFile, "--key-file")],
            "is for token-based auth: give either --key-file or --cert-file")
        guard let data = FileManager.default.contents(atPath: certificateFile) else {
            throw CommandFailure("--cert-file \(certificateFile): cannot read the file")
        }
        let certificate: APNsClientCertificate
        do {
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") {
                guard let certificateKeyFile else {
                    throw CommandFailure("--cert-key is required with a PEM --cert-file (or give a .p12)")
                }
                let key = try OptionFile.text(certificateKeyFile, option: "--cert-key")
                certificate = try APNsClientCertificate(certificatePEM: text, privateKeyPEM: key)
            } else {
                certificate = try APNsClientCertificate(pkcs12: Array(data), password: certificatePassword ?? "")
            }
        } catch let error as CryptoError {
            throw CommandFailure("--cert-file \(certificateFile): \(error)")
        }
        return .apnsCertificate(certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM)
    }

    private func fcm(_ appID: AppID, appKey: String?) throws -> RegisteredApp {
        try Self.refuseGiven(
            [(teamID, "--team-id"), (keyID, "--key-id"), (keyFile, "--key-file"), (topic, "--topic"), (pushType, "--push-type")],
            "is for --platform apns")
        try Self.refuseGiven([(vapidSubject, "--vapid-subject"), (vapidKeyFile, "--vapid-key-file")], "is for --platform web")
        if sandbox { throw CommandFailure("--sandbox is for --platform apns") }
        guard let serviceAccountFile else {
            throw CommandFailure("--service-account is required for an FCM app (the service account JSON from the Firebase console)")
        }
        let json = try OptionFile.text(serviceAccountFile, option: "--service-account")
        let account: ServiceAccount
        do {
            account = try ServiceAccount(json: json)
        } catch {
            throw CommandFailure("--service-account \(serviceAccountFile): \(error)")
        }
        return RegisteredApp(
            id: appID, credentials: .fcmServiceAccount(json: json, projectID: account.projectID), appKey: appKey)
    }

    /// Refuses the first of `options` that was given, saying `why` it does not belong.
    private static func refuseGiven(_ options: [(value: String?, option: String)], _ why: String) throws {
        if let given = options.first(where: { $0.value != nil }) { throw CommandFailure("\(given.option) \(why)") }
    }

    /// Apple's team and key ids are ten uppercase letters and digits.
    private static func requireAppleIdentifier(_ value: String, option: String) throws {
        guard value.count == 10, value.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }) else {
            throw CommandFailure("\(option) \(value) is not an Apple id (10 uppercase letters and digits)")
        }
    }

    private static func isValidTopic(_ topic: String) -> Bool {
        !topic.isEmpty && topic.count <= 255
            && topic.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }

    private static func validAppKey(_ key: String) throws -> String {
        guard (8...100).contains(key.count),
            key.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else {
            throw CommandFailure("--app-key must be 8 to 100 letters, digits, '-' or '_'")
        }
        return key
    }
}
