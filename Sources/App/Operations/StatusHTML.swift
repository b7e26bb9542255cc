import Foundation
import PushAPI
import PushCore

/// The status page's markup: one self-contained document (inline style, no scripts, no
/// external assets), tables that scroll sideways on a narrow screen. Values carry `id`s
/// and `data-*` attributes so that tools (and the tests) can read them.
struct StatusHTML {
    let report: StatusReport
    let startedAt: Date
    let refreshSeconds: Int
    /// This process's last answers to Matrix homeservers, newest first.
    var matrixAnswers: [MatrixAnswerLog.Entry] = []

    private func e(_ text: some StringProtocol) -> String { HTMLText.escape(text) }

    func render() -> String {
        let now = report.generatedAt
        let uptime = StatusHTML.duration(now.timeIntervalSince(startedAt))
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="refresh" content="\(refreshSeconds)">
            <title>pushgate status</title>
            <style>
            body{font:15px/1.4 system-ui,sans-serif;margin:0 auto;padding:12px;max-width:1100px;
              color:#222;background:#fafafa}
            h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em;border-bottom:1px solid #ddd}
            .meta{color:#555}.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;background:#fff}
            th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eee;vertical-align:top}
            th{background:#f0f0f0;font-weight:600}td.n{text-align:right;font-variant-numeric:tabular-nums}
            .bad{color:#b00020;font-weight:600}.warn{color:#9a5b00}.ok{color:#1b7f3b}
            .tiles{display:flex;flex-wrap:wrap;gap:8px}
            .tile{background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px 10px;min-width:7em}
            .tile b{display:block;font-size:1.4em}code{font-size:.9em;overflow-wrap:anywhere}
            td:first-child code{white-space:nowrap}
            @media (max-width:700px){#apps tr:first-child{display:none}
              #apps tr{display:block;border:1px solid #ddd;margin:0 0 8px}#apps td{display:block;border:0;text-align:left}
              #apps td[data-label]::before{content:attr(data-label) ": ";color:#555}}
            </style></head><body>
            <h1>pushgate status</h1>
            <p class="meta">node <b id="node">\(e(ProcessInfo.processInfo.hostName))</b> (pid \(getpid())),
            version <b id="version">\(e(PushgateVersion.current))</b> (commit <span id="commit">\(e(PushgateVersion.commit))</span>), up <b id="uptime">\(uptime)</b>;
            as of \(StatusHTML.timestamp(now)), reloads every \(refreshSeconds) s</p>

            """
        html += appsSection()
        html += devicesSection()
        html += lastHourSection()
        html += outboxSection()
        html += prunesSection()
        html += matrixSection()
        html += "</body></html>\n"
        return html
    }

    private func appsSection() -> String {
        var html = "<h2>Apps</h2>\n"
        guard !report.apps.isEmpty else {
            return html
                + "<p class=\"warn\">No app is registered: nothing can be pushed (<code>pushgate apps add</code>).</p>\n"
        }
        html += """
            <div class="scroll"><table id="apps"><tr><th>app</th><th>platform</th><th>credentials</th>\
            <th>state</th><th>devices</th><th>last upstream problem</th></tr>

            """
        let now = report.generatedAt
        for row in report.apps {
            let app = row.credentials.app
            var state: [String] = []
            if let problem = row.credentials.problem { state.append("<span class=\"bad\">\(e(problem))</span>") }
            if let issued = row.credentials.providerTokenIssuedAt {
                let age = now.timeIntervalSince1970 - Double(issued)
                // Apple refuses a provider token older than an hour; pushgate renews at 50 minutes.
                let style = age > 3600 ? "warn" : "ok"
                state.append("provider token <span class=\"\(style)\">\(StatusHTML.duration(age)) old</span>")
            } else if case .apnsToken = app.credentials {
                state.append("no provider token issued yet")
            }
            if let end = row.credentials.certificateNotAfter {
                let left = end.timeIntervalSince(now)
                let style = left < 0 ? "bad" : left < 30 * 86_400 ? "warn" : "ok"
                let words =
                    left < 0 ? "expired \(StatusHTML.duration(-left)) ago" : "ends in \(StatusHTML.duration(left))"
                state.append("certificate <span class=\"\(style)\">\(words)</span> (\(StatusHTML.timestamp(end)))")
            }
            if let check = row.lastCheck {
                let when = StatusHTML.duration(now.timeIntervalSince1970 - Double(check.checkedAt))
                let words =
                    check.ok
                    ? "<span class=\"ok\">accepted</span>" : "<span class=\"bad\">\(e(check.detail))</span>"
                let outcome = check.ok ? "ok" : "failed"
                state.append(
                    "last <code>apps check</code> \(when) ago: <span data-check=\"\(outcome)\">\(words)</span>")
            } else {
                state.append("<code>apps check</code> never run")
            }
            let problem =
                row.lastProblem.map { problem in
                    let at = StatusHTML.timestamp(Date(timeIntervalSince1970: Double(problem.at)))
                    return "<span class=\"warn\">\(e(problem.outcome))</span><br><small>\(at)</small>"
                } ?? "none"
            html += """
                <tr data-app="\(e(app.id.rawValue))"><td><code>\(e(app.id.rawValue))</code></td>\
                <td data-label="platform">\(app.platform.rawValue)</td><td data-label="credentials">\(e(row.credentials.kind))</td>\
                <td data-label="state">\(state.joined(separator: "<br>"))</td>\
                <td class="n" data-label="devices" data-devices="\(row.devices)">\(row.devices)</td>\
                <td data-label="last upstream problem">\(problem)</td></tr>

                """
        }
        return html + "</table></div>\n"
    }

    private func devicesSection() -> String {
        var html = "<h2>Devices</h2>\n<div class=\"tiles\" id=\"devices\">"
        if report.devicesByPlatform.isEmpty { html += "<div class=\"tile\"><b>0</b>stored devices</div>" }
        for (platform, count) in report.devicesByPlatform {
            html += "<div class=\"tile\" data-platform=\"\(e(platform))\"><b>\(count)</b>\(e(platform))</div>"
        }
        html += "</div>\n"
        if !report.unregisteredDevices.isEmpty {
            let list = report.unregisteredDevices.map { "<code>\(e($0.appID))</code> (\($0.count))" }
            html += "<p class=\"warn\">Devices of apps not registered: \(list.joined(separator: ", "))</p>\n"
        }
        return html
    }

    private func lastHourSection() -> String {
        var html =
            "<h2>Pushes in the last hour</h2>\n<p>Outbox deliveries (Beams, bridge, cospace), every attempt:</p>\n"
        html += "<div class=\"tiles\" id=\"outbox-last-hour\">"
        for kind in ["delivered", "retry", "dead", "pruned", "kept"] {
            let count = report.outboxLastHour[kind] ?? 0
            let style = count > 0 && (kind == "dead" || kind == "retry") ? " warn" : ""
            html += "<div class=\"tile\(style)\" data-outcome=\"\(kind)\"><b>\(count)</b>\(kind)</div>"
        }
        html += "</div>\n<p>Stored devices pushed in the last hour (pnm2 and outbox), by their last outcome:</p>\n"
        if report.devicesLastHour.isEmpty { return html + "<p id=\"devices-last-hour\">none</p>\n" }
        html += "<div class=\"scroll\"><table id=\"devices-last-hour\"><tr><th>last outcome</th><th>devices</th></tr>\n"
        for (outcome, count) in report.devicesLastHour {
            let style = outcome == "delivered" ? "ok" : "warn"
            html += "<tr><td class=\"\(style)\">\(e(outcome))</td><td class=\"n\">\(count)</td></tr>\n"
        }
        return html + "</table></div>\n"
    }

    private func outboxSection() -> String {
        let outbox = report.outbox
        let overdue =
            outbox.oldestDueAt.map {
                StatusHTML.duration(max(0, report.generatedAt.timeIntervalSince1970 - Double($0) / 1000))
            } ?? "nothing due"
        var html = "<h2>Outbox</h2>\n<div class=\"tiles\" id=\"outbox\">"
        html += "<div class=\"tile\" id=\"outbox-queued\"><b>\(outbox.queued)</b>queued</div>"
        html += "<div class=\"tile\" id=\"outbox-retrying\"><b>\(outbox.retrying)</b>retrying</div>"
        html += "<div class=\"tile\" id=\"outbox-due\"><b>\(outbox.due)</b>due now</div>"
        html += "<div class=\"tile\"><b id=\"outbox-oldest\">\(overdue)</b>oldest due waits</div>"
        let deadStyle = outbox.dead > 0 ? " bad" : ""
        html += "<div class=\"tile\(deadStyle)\" id=\"outbox-dead\"><b>\(outbox.dead)</b>dead letters</div></div>\n"
        html += housekeepingLine()
        html += "<p id=\"database-size\">Database: \(HTMLText.escape(report.databaseSize.summary)).</p>\n"
        guard !report.deadLetters.isEmpty else { return html }
        html += """
            <p>Newest dead letters (<code>pushgate outbox dead</code>, <code>pushgate outbox retry</code>):</p>
            <div class="scroll"><table id="dead-letters"><tr><th>queued</th><th>app</th><th>token</th>\
            <th>source</th><th>attempts</th><th>error</th></tr>

            """
        for letter in report.deadLetters {
            html += """
                <tr><td>\(StatusHTML.timestamp(Date(timeIntervalSince1970: Double(letter.createdAt) / 1000)))</td>\
                <td><code>\(e(letter.appID))</code></td><td><code>\(e(letter.token))</code></td><td>\(e(letter.source))</td>\
                <td class="n">\(letter.attempts)</td><td>\(e(letter.lastError ?? ""))</td></tr>

                """
        }
        return html + "</table></div>\n"
    }

    /// What housekeeping removed: its last run, and every run together.
    private func housekeepingLine() -> String {
        let housekeeping = report.housekeeping
        guard let lastRunAt = housekeeping.lastRunAt else {
            return "<p id=\"housekeeping\">Housekeeping has not run yet.</p>\n"
        }
        func counts(_ counts: HousekeepingCounts) -> String {
            "\(counts.devices) expired devices, \(counts.unregisteredAppDevices) devices of unregistered apps, "
                + "\(counts.deadLetters) old dead letters"
        }
        let when = StatusHTML.timestamp(Date(timeIntervalSince1970: Double(lastRunAt)))
        return "<p id=\"housekeeping\">Housekeeping, last run \(when): removed "
            + "<span id=\"housekeeping-last\">\(counts(housekeeping.lastRun))</span>; in all "
            + "<span id=\"housekeeping-total\">\(counts(housekeeping.total))</span>.</p>\n"
    }

    private func prunesSection() -> String {
        var html = "<h2>Dead tokens pruned recently (outbox)</h2>\n"
        guard !report.recentPrunes.isEmpty else { return html + "<p id=\"prunes\">none logged</p>\n" }
        html +=
            "<div class=\"scroll\"><table id=\"prunes\"><tr><th>when</th><th>app</th><th>token</th><th>reason</th></tr>\n"
        for entry in report.recentPrunes {
            html += """
                <tr><td>\(StatusHTML.timestamp(Date(timeIntervalSince1970: Double(entry.at) / 1000)))</td>\
                <td><code>\(e(entry.appID))</code></td><td><code>\(e(entry.token))</code></td>\
                <td>\(e(entry.detail ?? ""))</td></tr>

                """
        }
        return html + "</table></div>\n"
    }

    /// Which apps homeservers reach, and what this node last told them: a pusher rejected, a
    /// 502, a caller refused.
    private func matrixSection() -> String {
        var html = "<h2>Matrix push gateway</h2>\n"
        let open = report.apps.map(\.credentials.app).filter(\.openToMatrix)
        if open.isEmpty {
            html += "<p id=\"matrix-apps\">No app is open to Matrix: a notify's pushkeys are all rejected "
                + "(<code>pushgate apps add --replace … --matrix</code> opens one).</p>\n"
        } else {
            let list = open.map { "<code data-matrix-app=\"\(e($0.id.rawValue))\">\(e($0.id.rawValue))</code>" }
            html += "<p id=\"matrix-apps\">Apps homeservers may push to: \(list.joined(separator: ", "))</p>\n"
        }
        html += "<h3>Last answers (this node)</h3>\n"
        guard !matrixAnswers.isEmpty else { return html + "<p id=\"matrix-answers\">none since start</p>\n" }
        html += "<div class=\"scroll\"><table id=\"matrix-answers\"><tr><th>when</th><th>status</th>"
            + "<th>devices</th><th>rejected</th><th>note</th></tr>\n"
        for entry in matrixAnswers {
            let style = entry.status == 200 ? (entry.rejected > 0 ? "warn" : "ok") : "bad"
            html += """
                <tr data-status="\(entry.status)"><td>\(StatusHTML.timestamp(entry.at))</td>\
                <td class="\(style)">\(entry.status)</td><td class="n">\(entry.devices)</td>\
                <td class="n">\(entry.rejected)</td><td>\(e(entry.note))</td></tr>

                """
        }
        return html + "</table></div>\n"
    }

    /// `2026-11-24 09:12:05 UTC`.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }

    /// `45 s`, `12 min`, `3 h 5 min`, `41 d`.
    static func duration(_ seconds: TimeInterval) -> String {
        let total = Int(max(0, seconds))
        if total < 60 { return "\(total) s" }
        if total < 3600 { return "\(total / 60) min" }
        if total < 86_400 { return "\(total / 3600) h \(total % 3600 / 60) min" }
        return "\(total / 86_400) d"
    }
}
