import CFastCGI
import Glibc

/// The CGI parameters (`NAME=value` strings) libfcgi received for one request, as a dictionary.
enum CGIParams {
    /// Reads libfcgi's NULL-terminated `envp` array. The strings die at `FCGX_Finish_r`, so
    /// they are copied here. Byte-wise on purpose: splitting Swift `String`s by `Character`
    /// cost a third of a hello request's CPU.
    static func read(_ envp: FCGX_ParamArray?) -> [String: String] {
        var result: [String: String] = [:]
        guard var cursor = envp else { return result }
        result.reserveCapacity(32)
        while let entry = cursor.pointee {
            let length = strlen(entry)
            entry.withMemoryRebound(to: UInt8.self, capacity: length) { start in
                let bytes = UnsafeBufferPointer(start: start, count: length)
                let equals = bytes.firstIndex(of: UInt8(ascii: "=")) ?? length
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[..<equals]), as: UTF8.self)
                let value =
                    equals < length
                    ? String(decoding: UnsafeBufferPointer(rebasing: bytes[(equals + 1)...]), as: UTF8.self) : ""
                add(name, value, to: &result)
            }
            cursor += 1
        }
        return result
    }

    static func dictionary(from pairs: [(String, String)]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in pairs { add(name, value, to: &result) }
        return result
    }

    /// nginx before 1.23 sends a header that occurs twice as two `HTTP_*` params: join them
    /// the way HTTP does (`, `, and `; ` for cookies). For anything else the first one wins,
    /// as with `FCGX_GetParam`.
    private static func add(_ name: String, _ value: String, to result: inout [String: String]) {
        // One hash lookup for the usual case, a name seen once; a repeat is put right after.
        guard let existing = result.updateValue(value, forKey: name) else { return }
        result[name] = name.hasPrefix("HTTP_") ? existing + (name == "HTTP_COOKIE" ? "; " : ", ") + value : existing
    }
}
