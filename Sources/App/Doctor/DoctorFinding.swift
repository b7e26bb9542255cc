import PushStore

/// One line of `pushgate doctor`'s report: what was checked, and what to do when it is wrong.
/// A warning does not change the exit status; a problem makes it 1.
struct DoctorFinding: Equatable, CustomStringConvertible {
    /// The store's checkup judges in the same three words.
    typealias Verdict = StoreFinding.Verdict

    let verdict: Verdict
    /// The area, e.g. `database`, `socket`, `nginx`, `app com.example.app`.
    let subject: String
    /// What was found and, for a problem, what to do about it.
    let message: String

    static func ok(_ subject: String, _ message: String) -> Self { Self(verdict: .ok, subject: subject, message: message) }
    static func warning(_ subject: String, _ message: String) -> Self {
        Self(verdict: .warning, subject: subject, message: message)
    }
    static func problem(_ subject: String, _ message: String) -> Self {
        Self(verdict: .problem, subject: subject, message: message)
    }

    /// `ok    database: …`, `WARN  …`, `FAIL  …`: the verdict first so that `grep FAIL` works.
    var description: String {
        let label: String
        switch verdict {
        case .ok: label = "ok  "
        case .warning: label = "WARN"
        case .problem: label = "FAIL"
        }
        return "\(label) \(subject): \(message)"
    }
}

extension [DoctorFinding] {
    var hasProblem: Bool { contains { $0.verdict == .problem } }
}

extension DoctorFinding {
    /// A finding of the store backend's own checkup, in doctor's words.
    init(_ finding: StoreFinding) {
        self.init(verdict: finding.verdict, subject: finding.subject, message: finding.message)
    }
}
