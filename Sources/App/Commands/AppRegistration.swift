import ArgumentParser
import Foundation
import PushCore
import PushCrypto

/// What an operator asked `apps add` for, checked into a `RegisteredApp`. Every refusal names
/// the option or file and what is wrong with it.
struct AppRegistration: ParsableArguments {
    @Option(help: "The id clients name the app by (Acrobits AppId, cospace application_id, …).") var id: String
    @Option(help: "apns, fcm or web.") var platform: String
    @Option(name: .customLong("team-id"), help: "APNs: the Apple developer team id (10 characters).") var teamID: String?
    @Option(name: .customLong("key-id"), help: "APNs: the id of the .p8 signing key (10 characters).") var keyID: String?
    @Option(name: .customLong("key-file"), help: "APNs: the .p8 key file Apple issued.") var keyFile: String?
    @Option(name: .customLong("cert-file"), help: "APNs certificate auth: the client certificate (PEM, or a .p12 with the key).") var certFile: String?
    @Option(name: .customLong("cert-key"), help: "APNs certificate auth: the certificate's private key (PEM).") var certKey: String?
    @Option(
        name: .customLong("cert-password-file"),
        help: "APNs certificate auth: a file holding the .p12 password, or - to read it from standard input (default: no password).")
    var certPasswordFile: String?
    @Option(
        name: .customLong("cert-password"),
        help: ArgumentHelp("Deprecated: the .p12 password itself, which the process list and shell history show; use --cert-password-file.", visibility: .hidden))
    var certPassword: String?
    @Option(help: "APNs: the topic. Default: the app id (the bundle id) with the push type's suffix (<bundle>.voip for voip, …); mdm needs it.") var topic: String?
    @Option(name: .customLong("push-type"), help: "APNs: \(APNsPushType.names). Default: alert.") var pushType: String?
    @Flag(help: "APNs: the app's devices use the sandbox unless they say otherwise.") var sandbox = false
    @Option(name: .customLong("service-account"), help: "FCM: the service account JSON file.") var serviceAccount: String?
    @Option(name: .customLong("vapid-subject"), help: "Web: the contact push services see in every push (mailto:… or https://…).") var vapidSubject: String?
    @Option(name: .customLong("vapid-key-file"), help: "Web: an EC P-256 private key (PEM) to sign with. Default: a new key.") var vapidKeyFile: String?
    @Option(name: .customLong("app-key"), help: "The Pusher Beams app_key (instance id) its clients present; one APNs and one FCM app may share it.") var appKey: String?
    @Flag(
        name: .customLong("matrix"),
        help: "Let Matrix homeservers (PUSHGATE_MATRIX_HOMESERVERS) push to this app's devices through /_matrix/push/v1/notify. Their users choose the app_id, pushkey and payload of their pushers: open only an app that is a Matrix client of yours.")
    var openToMatrix = false

    func validated() throws -> RegisteredApp {
        let password = try certificatePassword()
        guard let appID = AppID(id) else {
            throw CommandFailure("--id \(id) is not a valid app id (letters, digits, '.', '_', '-'; at most 200)")
        }
        let key = try appKey.map(Self.validAppKey)
        var app: RegisteredApp
        switch Platform(dialectName: platform) {
        case .apns:
            app = try apns(appID, appKey: key, certificatePassword: password)
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

    /// The .p12 password from --cert-password-file, or from the old --cert-password, which
    /// still works but says why it should not be used.
    private func certificatePassword() throws -> String? {
        switch (certPasswordFile, certPassword) {
        case (.some, .some):
            throw CommandFailure("give the .p12 password once: --cert-password-file or --cert-password, not both")
        case (.some(let file), nil):
            return try OptionFile.secret(file, option: "--cert-password-file")
        case (nil, .some(let password)):
            FileHandle.standardError.write(
                Data("warning: --cert-password shows the password to every local user (process list) and in shell history; use --cert-password-file FILE or - for standard input\n".utf8))
            return password
        case (nil, nil):
            return nil
        }
    }

    /// Web Push: the VAPID key from --vapid-key-file, or a new one, and the contact URL.
    private func web(_ appID: AppID, appKey: String?) throws -> RegisteredApp {
        try Self.refuseGiven(
            [
                (teamID, "--team-id"), (keyID, "--key-id"), (keyFile, "--key-file"), (topic, "--topic"),
                (pushType, "--push-type"), (serviceAccount, "--service-account"), (certFile, "--cert-file"),
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

    private func apns(_ appID: AppID, appKey: String?, certificatePassword: String?) throws -> RegisteredApp {
        if serviceAccount != nil { throw CommandFailure("--service-account is for --platform fcm") }
        try Self.refuseGiven([(vapidSubject, "--vapid-subject"), (vapidKeyFile, "--vapid-key-file")], "is for --platform web")
        let credentials =
            certFile != nil
            ? try certificateCredentials(password: certificatePassword)
            : try tokenCredentials(certificatePassword: certificatePassword)
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
    private func tokenCredentials(certificatePassword: String?) throws -> AppCredentials {
        guard let teamID else { throw CommandFailure("--team-id is required for an APNs app (or --cert-file)") }
        guard let keyID else { throw CommandFailure("--key-id is required for an APNs app") }
        guard let keyFile else { throw CommandFailure("--key-file is required for an APNs app (the AuthKey_….p8 from Apple)") }
        try Self.refuseGiven(
            [(certKey, "--cert-key"), (certificatePassword, "--cert-password-file")], "goes with --cert-file")
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
    private func certificateCredentials(password: String?) throws -> AppCredentials {
        guard let certFile else { throw CommandFailure("--cert-file is required") }
        try Self.refuseGiven(
            [(teamID, "--team-id"), (keyID, "--key-id"), (keyFile, "--key-file")],
            "is for token-based auth: give either --key-file or --cert-file")
        guard let data = FileManager.default.contents(atPath: certFile) else {
            throw CommandFailure("--cert-file \(certFile): cannot read the file")
        }
        let certificate: APNsClientCertificate
        do {
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN ") {
                guard let certKey else {
                    throw CommandFailure("--cert-key is required with a PEM --cert-file (or give a .p12)")
                }
                let key = try OptionFile.text(certKey, option: "--cert-key")
                certificate = try APNsClientCertificate(certificatePEM: text, privateKeyPEM: key)
            } else {
                certificate = try APNsClientCertificate(pkcs12: Array(data), password: password ?? "")
            }
        } catch let error as CryptoError {
            throw CommandFailure("--cert-file \(certFile): \(error)")
        }
        return .apnsCertificate(certificatePEM: certificate.certificatePEM, privateKeyPEM: certificate.privateKeyPEM)
    }

    private func fcm(_ appID: AppID, appKey: String?) throws -> RegisteredApp {
        try Self.refuseGiven(
            [(teamID, "--team-id"), (keyID, "--key-id"), (keyFile, "--key-file"), (topic, "--topic"), (pushType, "--push-type")],
            "is for --platform apns")
        try Self.refuseGiven([(vapidSubject, "--vapid-subject"), (vapidKeyFile, "--vapid-key-file")], "is for --platform web")
        if sandbox { throw CommandFailure("--sandbox is for --platform apns") }
        guard let serviceAccount else {
            throw CommandFailure("--service-account is required for an FCM app (the service account JSON from the Firebase console)")
        }
        let json = try OptionFile.text(serviceAccount, option: "--service-account")
        let account: ServiceAccount
        do {
            account = try ServiceAccount(json: json)
        } catch {
            throw CommandFailure("--service-account \(serviceAccount): \(error)")
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
