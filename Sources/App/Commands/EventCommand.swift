import ArgumentParser
import PushAPI
import PushCore

/// `pushgate event`: a cospace push event from the shell, queued like `POST /api/push/events`.
struct EventCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "event",
        abstract: "Queue a cospace push event for every device of a user (delivered by serve's outbox worker).",
        discussion: "Messages and their fields: "
            + "fax_new (fax, phone, page_count), recording_new (recording, phone), "
            + "dialplan_callreverse_start|stop (phone_from, phone_to), "
            + "chat_message (chat, uuid, time, user, user_name, type, text).")

    @OptionGroup var global: GlobalOptions
    @Option(help: "The user's UUID (pushgate users list).") var owner: String
    @Option(help: "The event: \(CospaceEvent.messages.joined(separator: ", ")).") var message: String
    @Option(name: .customLong("field"), help: "KEY=VALUE, once per field of the event.") var fields: [String] = []

    func run() throws {
        var values: [String: String] = [:]
        for field in fields {
            guard let equals = field.firstIndex(of: "="), equals != field.startIndex else {
                throw CommandFailure("--field \(field): expected KEY=VALUE")
            }
            let key = String(field[..<equals])
            guard values.updateValue(String(field[field.index(after: equals)...]), forKey: key) == nil else {
                throw CommandFailure("--field \(key) given twice")
            }
        }
        let event: CospaceEvent
        do {
            event = try CospaceEvent(owner: owner, message: message, fields: values)
        } catch {
            throw CommandFailure("refused: \(error)")
        }
        let store = try Runtime(global).openStore()
        // The operator's own command: every app, as a loopback sender with no keys.
        guard let queued = try CospaceEventPublisher(users: store, outbox: store).publish(event)?.queued else {
            throw CommandFailure("no user has the id \(owner)")
        }
        print("queued for \(queued) device\(queued == 1 ? "" : "s")")
    }
}
