import PushCore

/// The parameters the Acrobits URL templates put in the path rather than the query:
/// `/token/<username>/` and `/pushToken/<username>/<selector>/<token>&appid=<appid>`.
enum ReporterPath {
    /// `/token/`, `/token/<username>/` (username from the path, as the document's JSON example),
    /// and the same shape under the account-removal prefix.
    static func usernameStyle(_ path: String, prefix: String) throws(ReporterError) -> FormParameters {
        let rest = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: true)
        switch rest.count {
        case 0:
            return FormParameters()
        case 1:
            return FormParameters(pairs: [("username", try decode(rest[0]))])
        default:
            throw .unknownPath(path)
        }
    }

    /// `/pushToken/<username>/<selector>/<token>&appid=<appid>[&more=…]`. The token is the last
    /// segment and may itself contain `/` (unencoded base64), so only the first two are split off.
    static func tokenStyle(_ path: String, prefix: String) throws(ReporterError) -> FormParameters {
        let rest = path.dropFirst(prefix.count).drop { $0 == "/" }
        let parts = rest.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .unknownPath(path) }
        var parameters = FormParameters(pairs: [
            ("username", try decode(parts[0])),
            ("selector", try decode(parts[1])),
        ])
        let tokenAndMore = parts[2].split(separator: "&", maxSplits: 1, omittingEmptySubsequences: false)
        // `+` stays `+` in a path (it is a space only in form encoding): base64 tokens keep it.
        parameters.append(name: "pushToken", value: try decode(tokenAndMore[0]))
        if tokenAndMore.count > 1 {
            do {
                parameters.append(contentsOf: try FormParameters.parse(tokenAndMore[1]))
            } catch {
                throw .badPercentEncoding
            }
        }
        return parameters
    }

    private static func decode(_ segment: Substring) throws(ReporterError) -> String {
        do {
            return try FormParameters.percentDecode(segment, plusAsSpace: false)
        } catch .invalidUTF8 {
            throw .invalidUTF8("path")
        } catch {
            throw .badPercentEncoding
        }
    }
}
