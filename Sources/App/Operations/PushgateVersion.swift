/// This build's version, shown on `/status` (a node of several says which it runs).
enum PushgateVersion {
    static let current = "0.1.0-dev"
}
