/// This build's version and the commit it was built from, shown by `pushgate --version`, on
/// `/status` (a node of several says which it runs) and in `/metrics`' `pushgate_build_info`.
/// Both come from `BuildInfo`, which Plugins/BuildInfo writes before each build: the version
/// from CHANGELOG.md's first `## VERSION` heading, its one place.
enum PushgateVersion {
    static let current = BuildInfo.version
    static let commit = BuildInfo.commit

    /// What `--version` prints.
    static let line = "pushgate \(current) (commit \(commit))"
}
