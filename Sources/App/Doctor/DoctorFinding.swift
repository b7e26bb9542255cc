import PushStore

/// One line of `pushgate doctor`'s report: what was checked, and what to do when it is wrong.
struct DoctorFinding: Equatable, CustomStringConvertible {
    enum Verdict: String, Equatable {
        /// Checked and fine.
        case ok
        /// Worth knowing, but not wrong: does not change the exit status.
        case warning
        /// Wrong: the deployment does not work, or will stop working. Exit status 1.
        case problem
    }

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
        let verdict: Verdict
        switch finding.verdict {
        case .ok: verdict = .ok
        case .warning: verdict = .warning
        case .problem: verdict = .problem
        }
        self.init(verdict: verdict, subject: finding.subject, message: finding.message)
    }
}
