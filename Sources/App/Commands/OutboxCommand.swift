import ArgumentParser
import Foundation
import PushCore

struct OutboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox", abstract: "Queued pushes: what waits, what failed for good, what happened lately.",
        subcommands: [Status.self, Dead.self, Retry.self, Log.self], defaultSubcommand: Status.self)

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "How many pushes wait, how many are dead letters, and which node holds which.")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let store = try Runtime(global).openStore()
            print("pending: \(try store.pendingCount())")
            // A large publish to interests is queued in steps: its rest is not pending yet.
            print("publishes still being queued: \(try store.fanOutsInProgress())")
            let shown = 10_000
            let dead = try store.deadLetters(limit: shown).count
            print("dead letters: \(dead == shown ? "\(shown) or more" : String(dead))")
            let housekeeping = try store.housekeepingReport()
            if let lastRunAt = housekeeping.lastRunAt {
                let last = housekeeping.lastRun
                let total = housekeeping.total
                print("housekeeping: last run \(Date(timeIntervalSince1970: Double(lastRunAt)).formatted(.iso8601))")
                print("  removed expired devices: \(last.devices) (in all \(total.devices))")
                print("  removed devices of unregistered apps: \(last.unregisteredAppDevices) (in all \(total.unregisteredAppDevices))")
                print("  removed old dead letters: \(last.deadLetters) (in all \(total.deadLetters))")
            } else {
                print("housekeeping: not run yet")
            }
            // Which node holds what: a node that died shows a lease in the past until another
            // node claims its rows again.
            let claims = try store.claims()
            guard !claims.isEmpty else { return }
            let now = Date()
            let rows = claims.map { claim in
                let until = Date(timeIntervalSince1970: Double(claim.leasedUntil) / 1000)
                let lease = until.formatted(.iso8601) + (until < now ? " (ran out)" : "")
                return [claim.node ?? "-", String(claim.rows), lease]
            }
            print(TextTable.render([["NODE", "IN FLIGHT", "LEASED UNTIL"]] + rows))
        }
    }

    struct Dead: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pushes given up on (after every retry, or refused upstream).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "At most this many.") var limit = 50

        func run() throws {
            let letters = try Runtime(global).openStore().deadLetters(limit: limit)
            TextTable.show(
                ["ID", "SOURCE", "APP", "TOKEN", "ATTEMPTS", "LAST ERROR"],
                letters.map { letter in
                    [
                        String(letter.id), letter.source, letter.appID, TokensCommand.List.shortened(letter.token),
                        String(letter.attempts), letter.lastError ?? "-",
                    ]
                }, orElse: "no dead letters")
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue every dead letter again (a running serve sends them).")
        @OptionGroup var global: GlobalOptions

        func run() throws {
            print("queued again: \(try Runtime(global).openStore().retryDeadLetters())")
        }
    }

    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Recent delivery outcomes of queued pushes, newest first.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "At most this many.") var limit = 50

        func run() throws {
            let entries = try Runtime(global).openStore().deliveryLog(limit: limit)
            TextTable.show(
                ["TIME", "APP", "TOKEN", "OUTCOME", "DETAIL"],
                entries.map { entry in
                    let time = Date(timeIntervalSince1970: Double(entry.at) / 1000).formatted(.iso8601)
                    return [time, entry.appID, entry.token, entry.kind.rawValue, entry.detail ?? "-"]
                }, orElse: "no deliveries logged")
        }
    }
}
