/// Running totals of what a mock answered.
public struct MockCounters: Sendable, Equatable, CustomStringConvertible {
    public var requests = 0
    /// By HTTP status: `[200: 19_998, 410: 2]`.
    public var byStatus: [Int: Int] = [:]
    public var connectionResets = 0
    public var goAways = 0

    mutating func count(_ outcome: RecordedOutcome) {
        requests += 1
        switch outcome {
        case .answered(let status, _): byStatus[status, default: 0] += 1
        case .connectionReset: connectionResets += 1
        case .goAway: goAways += 1
        }
    }

    public var description: String {
        let statuses = byStatus.keys.sorted().map { "\($0): \(byStatus[$0]!)" }.joined(separator: ", ")
        let answered = statuses.isEmpty ? "none answered" : statuses
        return "requests \(requests) (\(answered)), resets \(connectionResets), goaways \(goAways)"
    }
}
