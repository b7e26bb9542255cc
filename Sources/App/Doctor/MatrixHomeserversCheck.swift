import PushAPI

/// Who may call the Matrix push gateway (`PUSHGATE_MATRIX_HOMESERVERS`): a homeserver sends no
/// credentials, so a list open to everyone (`0.0.0.0/0`, `::/0`) lets anyone who reaches nginx
/// push to every registered app's devices.
struct MatrixHomeserversCheck {
    let homeservers: MatrixHomeservers

    func run() -> DoctorFinding {
        if homeservers.isOpenToEveryone {
            return .warning(
                "matrix",
                "PUSHGATE_MATRIX_HOMESERVERS (\(homeservers.listing)) lets every address call /_matrix/push/v1/notify, "
                    + "which needs no credentials: list your homeservers' addresses only")
        }
        return .ok("matrix", "homeservers that may call /_matrix/push/v1/notify: \(homeservers.listing)")
    }
}
