import PushAPI

/// The bridge's topics are restricted (`PUSHGATE_BRIDGE_TOPICS`): `pnsub` needs no secret, so
/// while they are not, anyone on the internet can store subscriptions to any topic (up to
/// the per-device limit, for as many devices as they make up).
struct BridgeTopicsCheck {
    let topics: BridgeTopics

    func run() -> DoctorFinding {
        guard let prefixes = topics.prefixes else {
            return .warning(
                "bridge",
                "\(BridgeTopics.key) is not set: bridge clients may subscribe to any topic; "
                    + "set it to the topic paths you publish under (comma-separated)")
        }
        return .ok("bridge", "clients may subscribe to " + prefixes.map(\.text).joined(separator: ", ") + " and below")
    }
}
