import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

final class ConcurrencyTests: StoreTestCase {
    /// Eight threads, each with its own store on one file, as the FastCGI workers will be:
    /// BEGIN IMMEDIATE plus the busy handler must queue them, never fail them with SQLITE_BUSY.
    func testConcurrentWritersOnOneFileNeverFailAndStayConsistent() throws {
        try requireSQLite("SQLite's per-thread connections and busy handler")
        try runConcurrentWriters(sharingAWriter: false)
    }

    /// The same, every write through one shared group-commit writer as `serve` wires it.
    func testConcurrentWritersSharingAGroupCommitWriter() throws {
        try requireSQLite("SQLite's group-commit writer")
        try runConcurrentWriters(sharingAWriter: true)
    }

    /// Eight threads sharing one store, on either engine: on PostgreSQL each write borrows
    /// a pooled connection, and SERIALIZABLE transactions that collide must be retried, never
    /// fail and never leave a device twice or without an owner.
    func testConcurrentWritersSharingOneStore() throws {
        let store = try makeStore()
        try runConcurrentWriters(threadStore: { store }, checkingWith: { store })
    }

    private func runConcurrentWriters(sharingAWriter: Bool) throws {
        let path = databasePath
        _ = try makeSQLiteStore()  // migrate once, before the workers start, as `serve` does
        let writer = sharingAWriter ? try GroupCommitWriter(path: path) : nil
        try runConcurrentWriters(
            threadStore: { try SQLiteStore(path: path, writer: writer) }, checkingWith: { try self.makeSQLiteStore() })
    }

    private func runConcurrentWriters(
        threadStore: @escaping @Sendable () throws -> any AcrobitsAccountStore,
        checkingWith checkStore: () throws -> any DeviceInventory
    ) throws {
        let threadCount = 8
        let savesPerThread = 200
        let selectorCount = 10

        let errors = Locked<[String]>([])
        let done = DispatchGroup()
        for thread in 0..<threadCount {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    let store = try threadStore()
                    for save in 0..<savesPerThread {
                        // Overlapping selectors, and tokens that move between accounts, so that
                        // devices are shared, replaced and deleted under contention.
                        let selector = "selector-\((thread + save) % selectorCount)"
                        let seed = UInt8((thread * 7 + save) % 16)
                        try store.saveAccountTokens(
                            selector: selector, username: "user-\(thread)",
                            tokens: [
                                Fixture.channelToken(.calls, seed: seed), Fixture.channelToken(.msgs, seed: seed &+ 1),
                            ])
                        if save % 50 == 25 {
                            _ = try store.removeAccount(selector: selector)
                        }
                    }
                } catch {
                    errors.withLock { $0.append("thread \(thread): \(error)") }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "writers did not finish")
        XCTAssertEqual(errors.withLock { $0 }, [])

        let devices = try checkStore().devices()
        var links: [String: Int] = [:]
        for device in devices {
            XCTAssertFalse(device.owners.isEmpty, "device \(device.id) was left without an owner")
            for case .acrobitsAccount(let selector, let channel, _) in device.owners {
                links["\(selector)/\(channel)", default: 0] += 1
            }
        }
        XCTAssertEqual(links.values.filter { $0 != 1 }, [], "each selector+channel is linked once")
        XCTAssertEqual(Set(devices.map { [$0.appID.rawValue, $0.token.hex] }).count, devices.count)
        // A thread saves each selector again 10 saves after removing it, so whatever the
        // interleaving, every selector's last operation is a save.
        XCTAssertEqual(links.count, selectorCount * 2)
    }
}
