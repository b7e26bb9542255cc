import ArgumentParser
import Foundation
import PushCore
import PushCrypto

/// Sender keys for the send-side endpoints (pnm2, publishes, events).
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Manage the keys senders (PBXs, backends) present to pnm2, publishes and events.",
        discussion: """
            With at least one valid key, every send-side request must carry one \
            (Authorization: Bearer KEY, or HTTP Basic with the key as password). \
            With none, only callers on this machine (loopback) may send. \
            A key made with --app pushes only to those apps, with --dialect only through \
            those dialects; --operator lets it read /metrics and /status, which then need \
            an operator key from every caller, loopback included. A key made with --operator \
            alone sends nothing; with --app or --dialect too, it does both.
            """,
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key and print it once (stored as its SHA-256 digest and, for Beams tokens, itself).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A name for the sender, shown in logs and by keys list (letters, digits, . _ -).") var name: String
        @Option(
            name: .customLong("app"),
            help: "An app (id) the key may push to; repeat for more. Without it, the key reaches every app.")
        var apps: [String] = []
        @Option(
            name: .customLong("dialect"),
            help: "A dialect the key may send through (pnm2, cospace, beams, bridge); repeat for more. Without it, every dialect.")
        var dialects: [String] = []
        @Flag(
            name: .customLong("operator"),
            help: "The key may read /metrics and /status. Alone, it sends nothing; with --app or --dialect, it sends as they say.")
        var isOperator = false

        func validate() throws {
            guard KeysCommand.isValidName(name) else {
                throw ValidationError("a key name is 1 to 64 of the characters A-Z a-z 0-9 . _ -")
            }
            _ = try scope()
        }

        func scope() throws -> SenderScope {
            // Without a word about sending, an operator key is for the pages only: the empty
            // scope, not the every-app-and-dialect one of a key made without options.
            if isOperator && apps.isEmpty && dialects.isEmpty { return .operatorOnly }
            var scope = SenderScope(isOperator: isOperator)
            if !apps.isEmpty {
                scope.apps = Set(
                    try apps.map { text in
                        guard let app = AppID(text) else { throw ValidationError("--app \(text) is not an app id") }
                        return app
                    })
            }
            if !dialects.isEmpty {
                scope.dialects = Set(
                    try dialects.map { text in
                        guard let dialect = SenderDialect(rawValue: text) else {
                            let known = SenderDialect.allCases.map(\.rawValue).joined(separator: ", ")
                            throw ValidationError("--dialect \(text) is not one of \(known)")
                        }
                        return dialect
                    })
            }
            return scope
        }

        func run() throws {
            let store = try Runtime(global).openStore()
            let scope = try scope()
            // An app may be registered after its key: said, not refused.
            for app in (scope.apps ?? []).sorted() where try store.app(id: app) == nil {
                FileHandle.standardError.write(Data("note: no app \(app) is registered (yet)\n".utf8))
            }
            let key = try SenderKeyMaterial.generate()
            do {
                // The key itself too: Beams tokens are HMACs the server SDK makes with it.
                try store.addSenderKey(name: name, digest: SenderKeyMaterial.digest(of: key), scope: scope, secret: key)
            } catch let error as SenderKeyError {
                throw CommandFailure(error.description)
            }
            print(key)
            FileHandle.standardError.write(
                Data(
                    "sender key \(name) created (\(KeysCommand.describe(scope))); it is shown only now: store it where the sender reads it\n"
                        .utf8))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys by name (never the keys themselves).")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let keys = try Runtime(global).openStore().senderKeys()
            if keys.isEmpty {
                print("no sender keys: only loopback callers may send")
                return
            }
            for key in keys {
                let created = KeysCommand.timestamp(key.createdAt)
                let state = key.revokedAt.map { "revoked \(KeysCommand.timestamp($0))" } ?? "valid"
                print(
                    "\(key.name)\tcreated \(created)\t\(state)\t\(KeysCommand.describe(key.scope))\t\(KeysCommand.beams(key))")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a key at once (it stays listed; its name cannot be reused).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The key's name.") var name: String

        func run() throws {
            guard try Runtime(global).openStore().revokeSenderKey(name: name) else {
                throw CommandFailure("no valid sender key named \(name)")
            }
            print("revoked sender key \(name)")
        }
    }

    static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }

    /// The scope as `keys list` shows it: whether the key sends, and where (a key without an
    /// app scope says so in words, since it reaches apps registered later too), and whether it
    /// reads the operator pages.
    static func describe(_ scope: SenderScope) -> String {
        var parts: [String] = []
        if scope.sends {
            let apps = scope.apps.map { "apps \($0.sorted().map(\.rawValue).joined(separator: ","))" } ?? "every app"
            let dialects =
                scope.dialects.map { "dialects \($0.sorted().map(\.rawValue).joined(separator: ","))" }
                ?? "every dialect"
            parts.append("sends: \(apps); \(dialects)")
        } else {
            parts.append("sends nothing")
        }
        if scope.isOperator { parts.append("reads /metrics and /status") }
        return parts.joined(separator: "; ")
    }

    /// Whether the key can sign Beams user tokens: it must keep its secret (keys made before
    /// Beams users are digests only) and may send through beams.
    static func beams(_ key: SenderKey) -> String {
        guard key.verifiesBeamsTokens else { return "digest only: cannot verify Beams tokens" }
        guard key.scope.sends, key.scope.allows(.beams) else { return "verifies no Beams tokens (beams is not in its scope)" }
        return "verifies Beams tokens"
    }

    static func timestamp(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
