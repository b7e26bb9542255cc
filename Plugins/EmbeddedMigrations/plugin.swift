import Foundation
import PackagePlugin

/// Gives the SchemaMigrations target the schema of the repository's top-level `sql/` (one
/// folder per engine): every `.sql` file's name and bytes, listed by the files themselves, so
/// that a new migration needs its file and nothing else. Run whenever a file there changes,
/// is added or goes (the list of inputs is read again each time the build is planned).
@main
struct EmbeddedMigrationsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let sql = root.appending(path: "sql")
        let script = root.appending(path: "scripts/lib/embed-migrations")
        let files = (FileManager.default.subpaths(atPath: sql.path) ?? [])
            .filter { $0.hasSuffix(".sql") }.sorted().map { sql.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        return [
            .buildCommand(
                displayName: "Embedding the migrations of sql/",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, sql.path, output.path],
                inputFiles: files + [script],
                outputFiles: [output])
        ]
    }
}
