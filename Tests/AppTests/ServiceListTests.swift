@testable import App
import Logging
import PushCore
import XCTest

/// serve's services start in the order listed and stop in the reverse one; a failed start
/// stops those already started.
final class ServiceListTests: XCTestCase {
    private final class Recorded: Service {
        let serviceName: String
        let journal: Locked<[String]>
        let fails: Bool

        init(_ name: String, journal: Locked<[String]>, fails: Bool = false) {
            serviceName = name
            self.journal = journal
            self.fails = fails
        }

        struct Refused: Error {}

        func start() throws {
            if fails { throw Refused() }
            journal.withLock { $0.append("start \(serviceName)") }
        }

        func stop() { journal.withLock { $0.append("stop \(serviceName)") } }
    }

    func testStartedInOrderStoppedInReverse() throws {
        let journal = Locked<[String]>([])
        let list = ServiceList(logger: Logger(label: "test"))
        for name in ["checkpointer", "engine", "outbox"] {
            try list.start(Recorded(name, journal: journal))
        }
        XCTAssertEqual(list.names, ["checkpointer", "engine", "outbox"])
        list.stopAll()
        list.stopAll()  // a second stop stops nothing twice
        XCTAssertEqual(
            journal.withLock { $0 },
            ["start checkpointer", "start engine", "start outbox", "stop outbox", "stop engine", "stop checkpointer"])
    }

    func testAFailedStartStopsWhatStartedBeforeIt() {
        let journal = Locked<[String]>([])
        func serve() throws {
            let list = ServiceList(logger: Logger(label: "test"))
            defer { list.stopAll() }
            try list.start(Recorded("checkpointer", journal: journal))
            try list.start(Recorded("engine", journal: journal, fails: true))
            try list.start(Recorded("outbox", journal: journal))
        }
        XCTAssertThrowsError(try serve())
        XCTAssertEqual(journal.withLock { $0 }, ["start checkpointer", "stop checkpointer"])
    }
}
