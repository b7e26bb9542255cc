import ArgumentParser

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Apply pending schema migrations to PUSHGATE_DB (or PUSHGATE_DATABASE_URL).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let runtime = try Runtime(global)
        let applied = try runtime.backend.migrate()
        if applied.isEmpty {
            print("schema is up to date (\(runtime.backend.databaseDescription))")
        } else {
            for name in applied { print("applied \(name)") }
        }
    }
}
