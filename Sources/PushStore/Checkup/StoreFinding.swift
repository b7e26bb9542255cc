/// One thing a backend's checkup found about its database, for doctor's report.
public struct StoreFinding: Equatable, Sendable {
    public enum Verdict: Sendable, Equatable {
        /// Checked and fine.
        case ok
        /// Worth knowing, but not wrong.
        case warning
        /// Wrong: the deployment does not work, or will stop working.
        case problem
    }

    public let verdict: Verdict
    /// The area: `database`, `migrations`, `apps`, `keys`.
    public let subject: String
    /// What was found and, for a problem, what to do about it.
    public let message: String

    public static func ok(_ subject: String, _ message: String) -> Self {
        Self(verdict: .ok, subject: subject, message: message)
    }
    public static func warning(_ subject: String, _ message: String) -> Self {
        Self(verdict: .warning, subject: subject, message: message)
    }
    public static func problem(_ subject: String, _ message: String) -> Self {
        Self(verdict: .problem, subject: subject, message: message)
    }
}
