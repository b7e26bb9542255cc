import ArgumentParser
import Foundation
import PushCore

struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Inspect stored device tokens.", subcommands: [List.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List stored devices with their owners (tokens shortened; whole with --json).")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON with whole tokens.") var json = false

        func run() throws {
            let devices = try Runtime(global).openStore().devices()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(devices.map(DeviceListing.init)), as: UTF8.self))
                return
            }
            TextTable.show(
                ["APP", "PLATFORM", "TOKEN", "OWNERS", "LAST OUTCOME"],
                devices.map { device in
                    [
                        device.appID.rawValue, device.platform?.rawValue ?? "(app not registered)",
                        Self.shortened(device.token.text(for: device.platform)),
                        device.owners.map(DeviceListing.Owner.init).map(\.summary).joined(separator: ", "),
                        device.lastOutcome ?? "-",
                    ]
                }, orElse: "no devices stored")
        }

        static func shortened(_ token: String) -> String {
            token.count <= 16 ? token : "\(token.prefix(8))…\(token.suffix(6))"
        }
    }
}

/// A stored device as `tokens list --json` prints it.
struct DeviceListing: Encodable {
    struct Owner: Encodable {
        var kind: String
        var selector: String?
        var channel: String?
        var username: String?
        var user: String?
        var client: String?
        var interests: [String]?

        init(_ owner: DeviceOwner) {
            switch owner {
            case .acrobitsAccount(let selector, let channel, let username):
                self.kind = "acrobits"
                self.selector = selector
                self.channel = channel.rawValue
                self.username = username
            case .cospaceUser(let id, let name):
                self.kind = "cospace"
                self.user = id
                self.username = name
            case .beamsClient(let id, let interests):
                self.kind = "beams"
                self.client = id
                self.interests = interests
            case .bridgeSubscription(let selector):
                self.kind = "bridge"
                self.selector = selector
            }
        }

        var summary: String {
            switch kind {
            case "acrobits": return "acrobits \(selector ?? "")/\(channel ?? "")" + (username.map { " (\($0))" } ?? "")
            case "cospace": return "cospace \(username ?? "") (\(user ?? ""))"
            case "beams": return "beams \(client ?? "")" + ((interests ?? []).isEmpty ? "" : " [\((interests ?? []).joined(separator: ", "))]")
            case "bridge": return "bridge \(selector ?? "")"
            default: return kind
            }
        }
    }

    var id: Int64
    var appID: String
    var platform: String?
    /// Hex for APNs, the registration token for FCM; for an app not registered yet, the token
    /// text when it reads as one, else hex.
    var token: String
    var reportedToken: String
    var sandbox: Bool?
    var createdAt: Int64
    var updatedAt: Int64
    var owners: [Owner]
    var lastOutcome: String?
    var lastOutcomeAt: Int64?

    enum CodingKeys: String, CodingKey {
        case id, platform, token, sandbox, owners
        case lastOutcome = "last_outcome"
        case lastOutcomeAt = "last_outcome_at"
        case appID = "app_id"
        case reportedToken = "reported_token"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    init(_ device: StoredDevice) {
        id = device.id
        appID = device.appID.rawValue
        platform = device.platform?.rawValue
        token = device.token.text(for: device.platform)
        reportedToken = device.reportedToken
        sandbox = device.sandbox
        createdAt = device.createdAt
        updatedAt = device.updatedAt
        owners = device.owners.map(Owner.init)
        lastOutcome = device.lastOutcome
        lastOutcomeAt = device.lastOutcomeAt
    }
}
