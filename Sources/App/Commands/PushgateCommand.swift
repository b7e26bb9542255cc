import ArgumentParser

/// `pushgate`: the responder and every operator command.
public struct PushgateCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "pushgate",
        abstract:
            "Self-hosted push-token store and push gateway: the Acrobits, cospace, Pusher Beams, Diffusion bridge and Matrix dialects, delivering to APNs, FCM and Web Push.",
        version: PushgateVersion.line,
        subcommands: [
            ServeCommand.self, MigrateCommand.self, AppsCommand.self, TokensCommand.self, SendCommand.self,
            OutboxCommand.self, KeysCommand.self, ConfigCommand.self, UsersCommand.self, EventCommand.self,
            DoctorCommand.self, ExportCommand.self, ImportCommand.self,
        ])

    public init() {}
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Configuration file (KEY = value lines); PUSHGATE_CONFIG also names it.")
    var config: String?
}

/// Any error a command ends with: printed as one plain line, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String

    init(_ message: String) {
        description = message
    }
}
