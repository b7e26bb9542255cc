import Foundation
import PackagePlugin

/// Gives the App target `BuildInfo.swift`: the version (CHANGELOG.md's first `## VERSION`
/// heading, its one place) and the commit the build is made from, so that `--version`,
/// `/status` and `/metrics` say what runs. A prebuild command, run before every build: the
/// commit changes without any file the build reads changing. The script rewrites the file
/// only when its text changes, so an unchanged tree recompiles nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo")
        return [
            .prebuildCommand(
                displayName: "Build info (version and commit)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [root.appending(path: "scripts/lib/build-info").path, root.path, output.path],
                outputFilesDirectory: output)
        ]
    }
}
