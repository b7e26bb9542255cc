import ArgumentParser
import Foundation
import PushCore
import PushCrypto

/// cospace users: who may log in to `/api/push` (HTTP Basic) and whose UUID push events name.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "Manage the cospace users of /api/push (HTTP Basic; events name a user by its UUID).",
        subcommands: [Add.self, List.self, Remove.self, Passwd.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a user; print its UUID (the `owner` of its push events).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The login name (no ':', which HTTP Basic cannot carry in a name).") var name: String
        @Flag(help: "Read the password from standard input (its first line).") var passwordStdin = false

        func validate() throws {
            try UsersCommand.validate(name: name, passwordStdin: passwordStdin)
        }

        func run() throws {
            let hash = try PasswordHash.make(password: try UsersCommand.readPassword())
            do {
                print(try Runtime(global).openStore().addUser(name: name, passwordHash: hash).id)
            } catch let error as CospaceUserError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users: UUID and name.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            for user in try Runtime(global).openStore().users() {
                print("\(user.id)\t\(user.name)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user and its registrations (devices no one else owns go too).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The login name.") var name: String

        func run() throws {
            guard try Runtime(global).openStore().removeUser(name: name) else {
                throw CommandFailure("no user named \(name)")
            }
            print("removed user \(name)")
        }
    }

    struct Passwd: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a user's password.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The login name.") var name: String
        @Flag(help: "Read the password from standard input (its first line).") var passwordStdin = false

        func validate() throws {
            try UsersCommand.validate(name: name, passwordStdin: passwordStdin)
        }

        func run() throws {
            let hash = try PasswordHash.make(password: try UsersCommand.readPassword())
            guard try Runtime(global).openStore().setPasswordHash(name: name, passwordHash: hash) else {
                throw CommandFailure("no user named \(name)")
            }
            print("password of \(name) changed")
        }
    }

    static func validate(name: String, passwordStdin: Bool) throws {
        guard passwordStdin else {
            throw ValidationError("give the password on standard input with --password-stdin (never as an argument)")
        }
        guard (1...200).contains(name.utf8.count), !name.contains(":"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw ValidationError("a user name is 1 to 200 bytes without ':' or control characters") }
    }

    /// The first line of standard input, without its line ending (a terminal needs no ^D).
    static func readPassword() throws -> String {
        guard let line = readLine(strippingNewline: true) else { throw CommandFailure("no password on standard input") }
        let password = line.hasSuffix("\r") ? String(line.dropLast()) : line
        guard !password.isEmpty else { throw CommandFailure("the password is empty") }
        return password
    }
}
