/// The configuration parses: the file (if one is named) and the `PUSHGATE_*` environment,
/// exactly as every command reads them. Nothing else can be checked without it.
struct ConfigurationCheck {
    let path: String?
    let environment: [String: String]

    /// The configuration when it parses, and the findings either way.
    func run() -> (Configuration?, [DoctorFinding]) {
        let file: ConfigurationFile?
        do {
            file = try path.map { path throws(ConfigurationError) in try ConfigurationFile(path: path) }
            let (configuration, warnings) = try Configuration.load(file: file, environment: environment)
            var findings = warnings.map { DoctorFinding.warning("configuration", $0) }
            let source = path.map { "\($0) parses" } ?? "no file named (--config, PUSHGATE_CONFIG): defaults and environment"
            findings.insert(.ok("configuration", source), at: 0)
            return (configuration, findings)
        } catch {
            return (nil, [.problem("configuration", "\(error); fix it, then run doctor again (nothing else was checked)")])
        }
    }
}
