import PushCore

/// What Beams' send-side endpoints (publish to interests, publish to users, user removal)
/// answer alike: their refusals in Beams' `{"error", "description"}` shape, and the instance a
/// sender names, which its key must reach whole.
public protocol BeamsSendEndpoint: SendEndpoint {}

extension BeamsSendEndpoint {
    public var dialect: SenderDialect { .beams }
    public var errors: any ErrorRenderer { BeamsErrors() }

    /// The instance of `appKey`, when `sender` may reach every one of its apps: an instance is
    /// its apps together, and a key that reached only some could act on half of what was meant
    /// for all (one half of a push, some of a user's devices).
    func instance(_ appKey: String, in store: any BeamsStore, for sender: Sender) throws -> BeamsInstance {
        guard let instance = try store.beamsInstance(appKey: appKey) else { throw BeamsError.instanceNotFound }
        if let refusal = sender.refusal(naming: instance.apps.map(\.id)) { throw refusal }
        return instance
    }
}
