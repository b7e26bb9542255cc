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
            With none, only callers on this machine (loopback) may send.
            """,
        subcommands: [Add.self, List.self, Revoke.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key and print it once (only its SHA-256 digest is stored).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A name for the sender, shown in logs and by keys list (letters, digits, . _ -).") var name: String

        func validate() throws {
            guard KeysCommand.isValidName(name) else {
                throw ValidationError("a key name is 1 to 64 of the characters A-Z a-z 0-9 . _ -")
            }
        }

        func run() throws {
            let store = try Runtime(global).openStore()
            let key = try SenderKeyMaterial.generate()
            do {
                try store.addSenderKey(name: name, digest: SenderKeyMaterial.digest(of: key))
            } catch let error as SenderKeyError {
                throw CommandFailure(error.description)
            }
            print(key)
            FileHandle.standardError.write(
                Data("sender key \(name) created; it is shown only now: store it where the sender reads it\n".utf8))
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
                print("\(key.name)\tcreated \(created)\t\(state)")
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

    static func timestamp(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
