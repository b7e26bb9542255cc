import ArgumentParser
import Foundation
import PushCore
import PushCrypto

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps", abstract: "Register the apps pushgate pushes for, with their APNs key or FCM service account.",
        subcommands: [Add.self, List.self, Remove.self, Check.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app (or update it with --replace).",
            discussion: """
                APNs:  pushgate apps add --id ID --platform apns --team-id TEAM --key-id KID --key-file AuthKey_KID.p8 \
                [--push-type TYPE] [--topic T] [--sandbox] [--app-key K] [--matrix]
                APNs with a certificate:  pushgate apps add --id ID --platform apns \
                (--cert-file cert.pem --cert-key key.pem | --cert-file cert.p12 [--cert-password-file F|-]) [--topic T] …
                FCM:   pushgate apps add --id ID --platform fcm --service-account service-account.json [--app-key K] [--matrix]
                Web:   pushgate apps add --id ID --platform web --vapid-subject mailto:ops@example.com \
                [--vapid-key-file vapid.pem] [--app-key K] [--matrix]
                With --replace, the app gets exactly the options given: leaving out --matrix (or \
                --sandbox, --app-key) takes it away.
                """)

        @OptionGroup var global: GlobalOptions
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
            help: "Let Matrix homeservers (PUSHGATE_MATRIX_HOMESERVERS) push to this app's devices through /_matrix/push/v1/notify. Their users choose the app_id, pushkey and payload of their pushers: open only an app that is a Matrix client of yours.")
        var matrix = false
        @Flag(help: "Update the app if it is registered already.") var replace = false

        func run() throws {
            let request = AppRegistration(
                id: id, platform: platform, teamID: teamID, keyID: keyID, keyFile: keyFile, topic: topic,
                pushType: pushType, sandbox: sandbox, serviceAccountFile: serviceAccount, appKey: appKey,
                certificateFile: certFile, certificateKeyFile: certKey, certificatePassword: try certificatePassword(),
                vapidSubject: vapidSubject, vapidKeyFile: vapidKeyFile, openToMatrix: matrix)
            let app = try request.validated()
            let store = try Runtime(global).openStore()
            do {
                try store.addApp(app, replacing: replace)
            } catch let error as AppCatalogError {
                throw CommandFailure(error.description)
            }
            print(
                "\(replace ? "registered (replacing)" : "registered") \(app.platform.rawValue) app \(app.id)"
                    + (app.openToMatrix ? ", open to Matrix homeservers" : ""))
            if case .webPush(let pem, _) = app.credentials {
                // The key browsers subscribe with (applicationServerKey): the site needs it.
                print("vapid public key \(try VAPIDKey(pem: pem).publicKeyBase64URL())")
            }
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
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List registered apps (no secrets are printed).")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let apps = try Runtime(global).openStore().apps()
            TextTable.show(
                ["ID", "PLATFORM", "CREDENTIALS", "TOPIC", "PUSH-TYPE", "SANDBOX", "APP-KEY", "MATRIX"],
                apps.map { app in
                    [
                        app.id.rawValue, app.platform.rawValue, Self.credentialSummary(app.credentials),
                        app.apnsTopic ?? "-", app.apnsPushType?.rawValue ?? "-",
                        app.platform == .apns ? (app.sandbox ? "yes" : "no") : "-", app.appKey ?? "-",
                        app.openToMatrix ? "open" : "closed",
                    ]
                }, orElse: "no apps registered")
        }

        static func credentialSummary(_ credentials: AppCredentials) -> String {
            switch credentials {
            case .apnsToken(let teamID, let keyID, _): return "p8 team=\(teamID) key=\(keyID)"
            case .apnsCertificate: return "certificate"
            case .fcmServiceAccount(_, let projectID): return "service-account project=\(projectID)"
            case .webPush(let pem, let subject):
                let publicKey = (try? VAPIDKey(pem: pem).publicKeyBase64URL()) ?? "unreadable"
                return "vapid public-key=\(publicKey) subject=\(subject)"
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an app (its devices stay until they are pruned).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The app's id.") var id: String

        func run() throws {
            guard let appID = AppID(id) else { throw CommandFailure("\(id) is not a valid app id") }
            guard try Runtime(global).openStore().removeApp(id: appID) else {
                throw CommandFailure("no app with id \(id) is registered")
            }
            print("removed app \(id)")
        }
    }
}

/// Column-aligned plain text for terminal listings.
enum TextTable {
    /// Prints `rows` under `header`, or `empty` when there are none.
    static func show(_ header: [String], _ rows: [[String]], orElse empty: String) {
        print(rows.isEmpty ? empty : render([header] + rows))
    }

    static func render(_ rows: [[String]]) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
