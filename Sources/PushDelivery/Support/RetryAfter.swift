import Foundation

/// Reads an HTTP `Retry-After` header (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date
/// which becomes the seconds from `now` to it (never negative).
enum RetryAfter {
    static func seconds(_ value: String?, now: Int) -> Int? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value) { return max(0, seconds) }
        guard let date = httpDate(value) else { return nil }
        return max(0, Int(date.timeIntervalSince1970) - now)
    }

    /// IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`, the form servers must send.
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}
