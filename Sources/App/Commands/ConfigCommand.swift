import ArgumentParser

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show the effective configuration (file, then environment).",
        subcommands: [Show.self, Get.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every key with its value and meaning.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let runtime = try Runtime(global)
            let meanings = Dictionary(uniqueKeysWithValues: Configuration.settings.map { ($0.name, $0.meaning) })
            for (name, value) in runtime.configuration.summary {
                print("\(name)=\(value)\t# \(meanings[name] ?? "")")
            }
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one key's effective value (for scripts).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The key, e.g. PUSHGATE_SOCKET.") var key: String

        func run() throws {
            let runtime = try Runtime(global)
            guard let entry = runtime.configuration.summary.first(where: { $0.name == key }) else {
                throw CommandFailure("unknown configuration key \(key)")
            }
            print(entry.value)
        }
    }
}
