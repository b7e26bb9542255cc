import PushCore

/// What Beams' send-side endpoints (publish to interests, publish to users, user removal)
/// answer alike: their refusals in Beams' `{"error", "description"}` shape, and the instance a
/// sender names, which its key must reach whole.
public protocol BeamsSendEndpoint: SendEndpoint {}

extension BeamsSendEndpoint {
    public var dialect: SenderDialect { .beams }

    /// The instance of `appKey`, when `sender` may reach every one of its apps: an instance is
    /// its apps together, and a key that reached only some could act on half of what was meant
    /// for all (one half of a push, some of a user's devices), so that is 403. An instance
    /// none of whose apps the key reaches is another tenant's, and to this key it does not
    /// exist: the answer of an unknown instance, word for word.
    func instance(_ appKey: String, in store: any BeamsStore, for sender: Sender) throws -> BeamsInstance {
        guard let instance = try store.beamsInstance(appKey: appKey) else { throw BeamsError.instanceNotFound }
        let apps = instance.apps.map(\.id)
        let outside = sender.scope.outside(apps)
        guard !outside.isEmpty else { return instance }
        guard outside.count < Set(apps).count else { throw BeamsError.instanceNotFound }
        // The caller named the instance, not its apps: the other one's id is not told.
        throw SenderRefusal.forbidden(
            reason: "the sender key \(sender.name) does not reach every app of this instance, and a push to it goes to all")
    }
}
