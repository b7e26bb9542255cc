/// How large the database is, and how much it grew over the last day: for /status and
/// `pushgate doctor`, so that growth from callers without a key is seen before the disk
/// fills. SQLite: the database file and its WAL; PostgreSQL: `pg_database_size`.
///
/// The growth is the size now less a sample of a day before: `serve` records one sample an
/// hour in the store (`OperationsStatusStore.recordDatabaseSize`), one for every node, kept
/// for `keptSeconds`.
public struct DatabaseSize: Sendable, Equatable {
    public var bytes: Int64
    /// The newest sample taken at least a day before (nil until one exists: a day after
    /// `serve` recorded its first).
    public var dayAgo: Sample?

    /// A day: the growth is over the last one.
    public static let daySeconds: Int64 = 86_400
    /// One sample an hour: its time is the start of its hour.
    public static let sampleSeconds: Int64 = 3_600
    /// How long a sample is kept: the day it is compared over, and a day's slack for a node
    /// that was down when its hour came.
    public static let keptSeconds: Int64 = 2 * daySeconds

    /// The start of the hour `unixSeconds` is in: a sample's time.
    public static func sampleTime(_ unixSeconds: Int64) -> Int64 {
        unixSeconds - ((unixSeconds % sampleSeconds) + sampleSeconds) % sampleSeconds
    }

    public struct Sample: Sendable, Equatable {
        /// Unix seconds: the start of the hour it was taken in.
        public var takenAt: Int64
        public var bytes: Int64

        public init(takenAt: Int64, bytes: Int64) {
            self.takenAt = takenAt
            self.bytes = bytes
        }
    }

    public init(bytes: Int64, dayAgo: Sample?) {
        self.bytes = bytes
        self.dayAgo = dayAgo
    }

    /// Bytes more than the day-old sample (negative when it shrank), nil without one.
    public var growthOverADay: Int64? { dayAgo.map { bytes - $0.bytes } }

    /// One line for people: `12.3 MB; +1.2 MB over the last day (since 2026-11-27 13:00 UTC)`.
    public var summary: String {
        let size = Self.text(bytes)
        guard let dayAgo, let growth = growthOverADay else {
            return "\(size); its growth over the last day is not known yet: serve records the size each hour, "
                + "the growth is known a day after its first record"
        }
        let sign = growth < 0 ? "-" : "+"
        return "\(size); \(sign)\(Self.text(abs(growth))) over the last day (since \(Self.time(dayAgo.takenAt)))"
    }

    /// Decimal units, one decimal: `950 B`, `12.3 kB`, `4.5 MB`, `1.2 GB`.
    public static func text(_ bytes: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        return "\((value * 10).rounded() / 10) \(units[unit])"
    }

    /// `2026-11-27 13:00 UTC`.
    static func time(_ unixSeconds: Int64) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let seconds = unixSeconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's days_from_civil inverse).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(seconds / 3600)):\(two(seconds % 3600 / 60)) UTC"
    }
}
