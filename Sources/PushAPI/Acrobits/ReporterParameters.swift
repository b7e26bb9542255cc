import PushCore

/// Gathers the parameters of an Acrobits reporter request from wherever the app's URL and
/// post-data templates put them: the path, the query string and a form or JSON body. Later
/// sources override earlier ones: path, then query, then body.
struct ReporterParameters {
    /// In order: a later value of a name overrides an earlier one. A report has about ten
    /// parameters and looks up about twenty names: scanning them from the end is cheaper than
    /// hashing every name into a dictionary first.
    private var values: FormParameters

    /// Longest value accepted for any parameter: tokens are ~44 (APNs) or ~200 (FCM) base64
    /// characters, everything else is shorter.
    static let maximumValueLength = 4096

    /// `path` holds the parameters the route found in the path (username, selector, …).
    init(request: Request, path: RouteParameters) throws(ReporterError) {
        let pathValues = try ReporterPath.values(of: request, path)
        do {
            let query = try FormParameters.parse(request.query)
            // The query style, nearly every report, has no path values to keep in front.
            if pathValues.pairs.isEmpty {
                values = query
            } else {
                values = pathValues
                values.append(contentsOf: query)
            }
        } catch {
            throw Self.map(error, part: "query string")
        }
        if request.method == "POST" {
            values.append(contentsOf: try Self.bodyParameters(of: request))
        }
        for (name, value) in values.pairs
        where value.utf8.count > Self.maximumValueLength && value.count > Self.maximumValueLength {
            throw .tooLong(field: name, limit: Self.maximumValueLength)
        }
    }

    /// The first of `names` that carries a value. Empty, `null` and `(null)` are what the apps
    /// send while a token is not known yet: they mean absent, never "erase".
    func value(_ names: [String]) -> (name: String, value: String)? {
        for name in names {
            if let value = values[name], !Self.meansAbsent(value) {
                return (name, value)
            }
        }
        return nil
    }

    static func meansAbsent(_ value: String) -> Bool {
        // On the bytes: every value of every report comes through here, and trimming and
        // lowercasing it as a String cost more than the rest of reading the account.
        var value = value
        return value.withUTF8 { bytes in
            let word = bytes.trimmingASCIIWhitespace()
            return word.isEmpty || equalsIgnoringASCIICase(word, "null") || equalsIgnoringASCIICase(word, "(null)")
        }
    }

    /// `word` is `lowercase` with any ASCII letters in either case.
    private static func equalsIgnoringASCIICase(_ word: UnsafeBufferPointer<UInt8>, _ lowercase: StaticString) -> Bool {
        guard word.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return zip(word, expected).allSatisfy { byte, letter in
            byte == letter || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte | 0x20 == letter)
        }
    }

    private static func bodyParameters(of request: Request) throws(ReporterError) -> FormParameters {
        switch request.mediaType {
        case nil, "application/x-www-form-urlencoded":
            // The apps default to form encoding when no content type is configured.
            guard let text = String(validating: request.body, as: UTF8.self) else { throw .invalidUTF8("body") }
            do {
                return try FormParameters.parse(text)
            } catch {
                throw map(error, part: "body")
            }
        case "application/json":
            return try jsonParameters(request.body)
        case let other?:
            throw .unsupportedContentType(other)
        }
    }

    private static func jsonParameters(_ body: [UInt8]) throws(ReporterError) -> FormParameters {
        let document: JSONValue
        do {
            document = try JSONValue.parse(body)
        } catch .invalidUTF8 {
            throw .invalidUTF8("body")
        } catch .tooDeep {
            throw .nestedTooDeep
        } catch {
            throw .malformedJSON
        }
        guard let object = document.objectValue else { throw .notAnObject }
        var parameters = FormParameters()
        for (name, value) in object.sorted(by: { $0.key < $1.key }) {
            switch value {
            case .string(let text): parameters.append(name: name, value: text)
            case .null: continue
            default: throw .wrongType(field: name)
            }
        }
        return parameters
    }

    private static func map(_ error: FormParameters.ParseError, part: String) -> ReporterError {
        switch error {
        case .badPercentEncoding: return .badPercentEncoding
        case .invalidUTF8: return .invalidUTF8(part)
        }
    }
}
