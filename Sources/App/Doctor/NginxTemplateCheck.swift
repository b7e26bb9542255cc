import Foundation

/// nginx's pushgate site include is the one this version's template renders, and passes
/// requests to this configuration's socket. A stale include (rendered by an older version)
/// lacks what newer endpoints and limits need; one pointing elsewhere is a 502.
///
/// Comments and blank lines are ignored, and so are `listen`, `server_name` and `ssl_…` lines:
/// where nginx listens (a public address, TLS) is the operator's choice. Every other line must
/// match the template's line, where each `@PUSHGATE_…@` placeholder stands for one value used
/// the same way throughout. The lines render-nginx adds for the nodes
/// (`PUSHGATE_NGINX_NODES`) and the senders never rate-limited
/// (`PUSHGATE_NGINX_SENDER_ADDRESSES`) are the operator's too.
struct NginxTemplateCheck {
    let renderedPath: String
    let templatePath: String?
    let socket: String

    func run() -> [DoctorFinding] {
        guard let rendered = try? String(contentsOfFile: renderedPath, encoding: .utf8) else {
            return Self.problem(
                "no site include at \(renderedPath): install it (scripts/install) or name yours with --nginx-conf")
        }
        guard let templatePath, let template = try? String(contentsOfFile: templatePath, encoding: .utf8) else {
            return Self.problem(
                "cannot find this version's nginx template (share/pushgate/nginx/pushgate.conf): name it with --nginx-template")
        }
        return Self.compare(rendered: rendered, template: template, renderedPath: renderedPath, socket: socket)
    }

    static func compare(rendered: String, template: String, renderedPath: String, socket: String) -> [DoctorFinding] {
        let expected = significantLines(template)
        let found = withoutListedSenderLines(withoutNodeLines(significantLines(rendered)))
        var values: [String: String] = [:]
        for (index, line) in expected.enumerated() {
            guard index < found.count else {
                return problem(
                    "\(renderedPath) ends before `\(line.text)`: it was rendered from another version's template; render it again (scripts/install)"
                )
            }
            guard match(line.text, found[index].text, values: &values) else {
                return problem(
                    "\(renderedPath) line \(found[index].number) `\(found[index].text)` differs from this version's template "
                        + "(`\(line.text)`): render it again (scripts/install), then `nginx -t && systemctl reload nginx`")
            }
        }
        if found.count > expected.count {
            let extra = found[expected.count]
            return problem(
                "\(renderedPath) line \(extra.number) `\(extra.text)` is not in this version's template: render it again (scripts/install)")
        }
        let absolute = URL(fileURLWithPath: socket).standardizedFileURL.path
        if let target = values["@PUSHGATE_SOCKET@"], target != absolute {
            return problem(
                "\(renderedPath) passes requests to \(target) but PUSHGATE_SOCKET is \(absolute): nginx will answer 502; render it with the same socket")
        }
        return [.ok("nginx", "\(renderedPath) matches this version's template and passes requests to \(absolute)")]
    }

    /// The check's one finding when the include is not the template's.
    private static func problem(_ message: String) -> [DoctorFinding] {
        [.problem("nginx", message)]
    }

    struct Line {
        let number: Int
        let text: String
    }

    /// Directives an operator sets for their own site: the address, the name, TLS, and who
    /// besides loopback may reach the operator pages (`allow`).
    static let operatorsOwn = ["listen ", "server_name ", "ssl_", "allow "]

    static func significantLines(_ text: String) -> [Line] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { index, raw in
            let line = raw.trimmingCharacters(in: .whitespaces)
            let ignored = line.isEmpty || line.hasPrefix("#") || operatorsOwn.contains { line.hasPrefix($0) }
            return ignored ? nil : Line(number: index + 1, text: line)
        }
    }

    /// The rendered lines without what `render-nginx` adds for several nodes
    /// (`PUSHGATE_NGINX_NODES`): the nodes after the first in the shared upstream, and each
    /// node's own upstream and `/metrics/node/K` location. The first server stays, so that it
    /// is still checked against PUSHGATE_SOCKET.
    static func withoutNodeLines(_ lines: [Line]) -> [Line] {
        var kept: [Line] = []
        var skippingBlock = false
        for line in lines {
            if skippingBlock {
                if line.text == "}" { skippingBlock = false }
                continue
            }
            let text = line.text
            if (text.hasPrefix("upstream pushgate_node_") || text.hasPrefix("location = /metrics/node/")) && text.hasSuffix("{") {
                skippingBlock = true
                continue
            }
            if text.hasPrefix("server "), let previous = kept.last, previous.text.hasPrefix("server ") {
                continue
            }
            kept.append(line)
        }
        return kept
    }

    /// The rendered lines without the senders an operator lists (`PUSHGATE_NGINX_SENDER_ADDRESSES`):
    /// the `ADDRESS 1;` lines render-nginx adds to the `geo $pushgate_listed_sender` block,
    /// whose `default 0;` stays to be checked.
    static func withoutListedSenderLines(_ lines: [Line]) -> [Line] {
        var kept: [Line] = []
        var inBlock = false
        for line in lines {
            if inBlock {
                if line.text == "}" {
                    inBlock = false
                } else if line.text.hasSuffix(" 1;"),
                    line.text.dropLast(" 1;".count).allSatisfy({ $0.isHexDigit || ":./".contains($0) })
                {
                    continue
                }
            } else if line.text == "geo $pushgate_listed_sender {" {
                inBlock = true
            }
            kept.append(line)
        }
        return kept
    }

    /// Whether `line` is `pattern` with each placeholder replaced by a value; a placeholder
    /// seen before must have the same value again.
    static func match(_ pattern: String, _ line: String, values: inout [String: String]) -> Bool {
        var pieces: [Substring] = []  // literal, placeholder, literal, placeholder, …, literal
        var rest = Substring(pattern)
        while let start = rest.range(of: "@PUSHGATE_"),
            let end = rest[start.upperBound...].firstIndex(of: "@")
        {
            pieces.append(rest[..<start.lowerBound])
            pieces.append(rest[start.lowerBound...end])
            rest = rest[rest.index(after: end)...]
        }
        pieces.append(rest)
        var remaining = Substring(line)
        guard remaining.hasPrefix(pieces[0]) else { return false }
        remaining = remaining.dropFirst(pieces[0].count)
        var index = 1
        while index < pieces.count {
            let placeholder = String(pieces[index])
            let literal = pieces[index + 1]
            let value: Substring
            if literal.isEmpty {
                value = remaining
                remaining = ""
            } else {
                guard let range = remaining.range(of: literal) else { return false }
                value = remaining[..<range.lowerBound]
                remaining = remaining[range.lowerBound...]
            }
            guard !value.isEmpty else { return false }
            if let known = values[placeholder], known != String(value) { return false }
            values[placeholder] = String(value)
            guard remaining.hasPrefix(literal) else { return false }
            remaining = remaining.dropFirst(literal.count)
            index += 2
        }
        return remaining.isEmpty
    }
}
