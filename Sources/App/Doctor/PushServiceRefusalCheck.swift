import Foundation
import PushCore

/// A web app whose push service last refused its VAPID credentials (401, 403). Push services
/// answer only for a real subscription, so `apps check` cannot probe them the way it probes
/// APNs and FCM; what the services said to the app's last pushes is the evidence there is.
struct PushServiceRefusalCheck {
    let apps: [RegisteredApp]
    /// Per app, the newest delivery that did not end in `delivered` (`AppProblem`).
    let problems: [AppProblem]

    func run() -> [DoctorFinding] {
        let newest = Dictionary(problems.map { ($0.appID, $0) }, uniquingKeysWith: { first, _ in first })
        return apps.filter { $0.platform == .web }.compactMap { app in
            guard let problem = newest[app.id.rawValue], Self.isCredentialRefusal(problem.outcome) else { return nil }
            let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(problem.at)))
            return .problem(
                "app \(app.id)",
                "a push service refused its VAPID credentials at \(when) (\(problem.outcome)): browsers that subscribed with another key must subscribe again, or `apps add --replace --vapid-key-file` with the key they subscribed with; check --vapid-subject is a mailto: or https: URL")
        }
    }

    /// `DeliveryResult.summary` of a 401 or 403 refusal.
    static func isCredentialRefusal(_ outcome: String) -> Bool {
        outcome.hasPrefix("rejected (401)") || outcome.hasPrefix("rejected (403)")
    }
}
