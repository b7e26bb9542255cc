import Foundation

/// The samples of a Prometheus text exposition, parsed (`name{label="value",…} number`),
/// so that a test can ask for one series by its name and its exact label set.
struct PrometheusText {
    struct Sample {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    let samples: [Sample]

    init(_ text: String) throws {
        var samples: [Sample] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.isEmpty {
            samples.append(try Self.sample(String(line)))
        }
        self.samples = samples
    }

    /// The value of the series with exactly these labels; nil when there is none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    /// Every series of `name` whose labels include `labels`.
    func series(_ name: String, matching labels: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
    }

    private static func sample(_ line: String) throws -> Sample {
        struct Malformed: Error, CustomStringConvertible { let description: String }
        var labels: [String: String] = [:]
        let name: String
        let rest: Substring
        if let brace = line.firstIndex(of: "{") {
            name = String(line[..<brace])
            var index = line.index(after: brace)
            while line[index] != "}" {
                guard let equals = line[index...].firstIndex(of: "=") else { throw Malformed(description: line) }
                let key = String(line[index..<equals]).trimmingCharacters(in: CharacterSet(charactersIn: ", "))
                var cursor = line.index(equals, offsetBy: 2)  // past `="`
                var value = ""
                while line[cursor] != "\"" {
                    if line[cursor] == "\\" { cursor = line.index(after: cursor) }
                    value.append(line[cursor])
                    cursor = line.index(after: cursor)
                }
                labels[key] = value
                index = line.index(after: cursor)
                if line[index] == "," { index = line.index(after: index) }
            }
            rest = line[line.index(after: index)...]
        } else {
            let space = line.firstIndex(of: " ") ?? line.endIndex
            name = String(line[..<space])
            rest = line[space...]
        }
        let number = rest.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init) ?? ""
        guard let value = Double(number) ?? (number == "+Inf" ? .infinity : nil) else {
            throw Malformed(description: line)
        }
        return Sample(name: name, labels: labels, value: value)
    }
}
