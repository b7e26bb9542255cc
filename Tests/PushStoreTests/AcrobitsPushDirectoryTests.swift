import Foundation
import PushCore
import XCTest

@testable import PushStore

/// pnm2's read-only lookups: a device by (app, token), an account's device per channel.
final class AcrobitsPushDirectoryTests: StoreTestCase {
    func testFindsStoredDevicesInTheOrderAskedAndNilForUnknownOnes() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        let ids = Dictionary(uniqueKeysWithValues: try store.devices().map { ($0.token, $0.id) })

        let found = try store.storedDevices([
            (Fixture.apnsAppID, Fixture.apnsToken(2)), (Fixture.apnsAppID, Fixture.apnsToken(9)),
            (AppID("other.app")!, Fixture.apnsToken(1)), (Fixture.apnsAppID, Fixture.apnsToken(1)),
        ])
        XCTAssertEqual(found.map { $0?.id }, [ids[Fixture.apnsToken(2)], nil, nil, ids[Fixture.apnsToken(1)]])
        XCTAssertEqual(found[0]?.token, Fixture.apnsToken(2))
        XCTAssertEqual(try store.storedDevices([]), [])
    }

    func testAnAccountsDevicesByChannel() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        let devices = try store.accountDevices(selector: "alice")
        XCTAssertEqual(devices[.calls]?.token, Fixture.apnsToken(1))
        XCTAssertEqual(devices[.msgs]?.token, Fixture.apnsToken(2))
        XCTAssertEqual(devices[.msgs]?.appID, Fixture.apnsAppID)
        XCTAssertEqual(try store.accountDevices(selector: "bob"), [:])

        // Pruned with its device, as a dead token does.
        let msgsID = try XCTUnwrap(devices[.msgs]?.id)
        XCTAssertTrue(try store.pruneDevice(id: msgsID, deadSince: nil))
        XCTAssertEqual(Set(try store.accountDevices(selector: "alice").keys), [.calls])
    }

    func testAnAccountsDevicesCarryTheirSandbox() throws {
        let store = try makeStore()
        try store.saveAccountTokens(
            selector: "alice", username: nil,
            tokens: [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)])
        let callsID = try XCTUnwrap(try store.accountDevices(selector: "alice")[.calls]?.id)
        try store.setSandbox(true, deviceID: callsID)
        let devices = try store.accountDevices(selector: "alice")
        XCTAssertEqual(devices[.calls]?.sandbox, true)
        XCTAssertEqual(devices[.msgs]?.sandbox, .some(nil))
    }
}
