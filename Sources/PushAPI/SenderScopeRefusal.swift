import PushCore

extension Sender {
    /// The 403 of a request naming apps outside this sender's scope, nil when every app it
    /// names is within. The reason names the apps the caller itself named, nothing else.
    public func refusal(naming apps: [AppID]) -> SenderRefusal? {
        let outside = scope.outside(apps)
        guard !outside.isEmpty else { return nil }
        let list = outside.map(\.rawValue).joined(separator: ", ")
        let noun = outside.count == 1 ? "app" : "apps"
        return .forbidden(reason: "the sender key \(name) may not push to the \(noun) \(list)")
    }
}
