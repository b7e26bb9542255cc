import PushCore

/// The message types (`verb`) of the Acrobits HTTP push gateway.
enum Pnm2Verb: String, Sendable, CaseIterable {
    /// A new message: shown with badge, sound, sender and preview; the app fetches the rest.
    case notifyTextMessage = "NotifyTextMessage"
    /// A plain text shown to the user (reminders, marketing); the app does nothing else.
    case notifyGenericTextMessage = "NotifyGenericTextMessage"
    /// Reload the configuration now; nothing is shown.
    case notifyReprovision = "NotifyReprovision"

    /// Every verb but the generic text names the account (`Selector`) that must act on it.
    var needsSelector: Bool { self != .notifyGenericTextMessage }

    /// The account channel a push addressed by `Selector` alone goes to: none of the
    /// document's verbs is an incoming call, so all go to the remote-notification token.
    var channel: AcrobitsChannel { .msgs }
}
