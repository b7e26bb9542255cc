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
        @OptionGroup var registration: AppRegistration
        @Flag(help: "Update the app if it is registered already.") var replace = false

        func run() throws {
            let app = try registration.validated()
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
