import PushCore

/// Sender keys that reach every app while several apps are registered: one tenant's PBX
/// could then push to another's devices. Worth a warning, not a failure: a single-tenant
/// deployment may mean it.
struct SenderKeyScopeCheck {
    let keys: [SenderKey]
    let appCount: Int

    func run() -> [DoctorFinding] {
        let valid = keys.filter { $0.revokedAt == nil }
        let unscoped = valid.filter { $0.scope.apps == nil }.map(\.name)
        guard appCount > 1, !unscoped.isEmpty else {
            let count = valid.count
            return [
                .ok(
                    "keys",
                    "\(count) valid sender key\(count == 1 ? "" : "s"), \(appCount) app\(appCount == 1 ? "" : "s")")
            ]
        }
        return [
            .warning(
                "keys",
                "\(appCount) apps are registered and sender key\(unscoped.count == 1 ? "" : "s") "
                    + "\(unscoped.joined(separator: ", ")) reach\(unscoped.count == 1 ? "es" : "") every one of them: "
                    + "make keys limited to their apps (pushgate keys add NAME --app APPID) and revoke these")
        ]
    }
}
