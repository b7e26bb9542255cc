import Foundation

/// The clock is sane: not before this version was written, not behind what the database
/// already recorded, and (a warning only) kept in step by NTP. APNs refuses provider tokens
/// whose issue time is off by more than an hour, and certificates look expired or not yet
/// valid on a wrong clock.
struct ClockCheck {
    let now: Date
    /// The newest time the database records (a migration's `applied_at`), if known.
    let latestRecordedTime: Int64?
    /// Whether systemd says NTP keeps the clock; nil when it cannot tell.
    let synchronised: Bool?

    /// No clock showing an earlier date is right: this version was written in November 2026.
    static let earliestPlausible = Date(timeIntervalSince1970: 1_793_491_200)  // 2026-11-01 00:00 UTC
    /// How far behind the database's own records the clock may be (a migration's time is
    /// recorded by whichever host ran it).
    static let tolerance: TimeInterval = 300

    func run() -> [DoctorFinding] {
        let text = ISO8601DateFormatter().string(from: now)
        if now < Self.earliestPlausible {
            return [.problem("clock", "the time is \(text), before this version was written: set the clock (timedatectl, NTP)")]
        }
        if let latestRecordedTime {
            let recorded = Date(timeIntervalSince1970: TimeInterval(latestRecordedTime))
            if recorded.timeIntervalSince(now) > Self.tolerance {
                return [
                    .problem(
                        "clock",
                        "the time is \(text) but the database recorded \(ISO8601DateFormatter().string(from: recorded)): "
                            + "the clock went back; set it (timedatectl, NTP)")
                ]
            }
        }
        switch synchronised {
        case .some(true):
            return [.ok("clock", "\(text), synchronised")]
        case .some(false):
            return [.warning("clock", "\(text), but it is not synchronised: enable NTP (timedatectl set-ntp true)")]
        case .none:
            return [.ok("clock", "\(text) (whether NTP keeps it could not be read)")]
        }
    }

    /// systemd's view (`timedatectl show -p NTPSynchronized`), which is the kernel's clock
    /// state; nil without systemd running or timedatectl installed.
    static func systemSaysSynchronised() -> Bool? {
        let tool = "/usr/bin/timedatectl"
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["show", "--property=NTPSynchronized", "--value"]
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "yes": return true
        case "no": return false
        default: return nil
        }
    }
}
