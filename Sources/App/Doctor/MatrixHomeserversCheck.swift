import PushAPI
import PushCore

/// Who may call the Matrix push gateway (`PUSHGATE_MATRIX_HOMESERVERS`) and which apps they
/// reach. A homeserver sends no credentials and its users choose their pushers' app_id and
/// pushkey, so a list open to everyone (`0.0.0.0/0`, `::/0`) lets anyone who reaches nginx push
/// to every app open to Matrix.
struct MatrixHomeserversCheck {
    let homeservers: MatrixHomeservers
    /// The registered apps, when the store could be read.
    let apps: [RegisteredApp]?

    func run() -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if homeservers.isOpenToEveryone {
            findings.append(
                .warning(
                    "matrix",
                    "PUSHGATE_MATRIX_HOMESERVERS (\(homeservers.listing)) lets every address call /_matrix/push/v1/notify, "
                        + "which needs no credentials: list your homeservers' addresses only"))
        } else {
            findings.append(.ok("matrix", "homeservers that may call /_matrix/push/v1/notify: \(homeservers.listing)"))
        }
        guard let apps else { return findings }
        let open = apps.filter(\.openToMatrix).map(\.id.rawValue)
        if !open.isEmpty {
            findings.append(.ok("matrix", "apps homeservers may push to: \(open.joined(separator: ", "))"))
        } else if homeservers != .loopback {
            // The operator listed homeservers, so Matrix is meant to work: every pushkey is rejected.
            findings.append(
                .warning(
                    "matrix",
                    "homeservers are listed but no app is open to Matrix: every notify's pushkeys are rejected "
                        + "and the homeservers delete those pushers; open your Matrix client's apps with "
                        + "`pushgate apps add --replace … --matrix`"))
        } else {
            findings.append(.ok("matrix", "no app is open to Matrix (`pushgate apps add … --matrix` opens one)"))
        }
        return findings
    }
}
