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

    /// A multisend's or a notify's thousand keys are one statement: each answer in its key's
    /// place, nil for a key not stored, a key asked twice answered twice, each device's
    /// sandbox as stored. Tokens of many lengths, some the start of another: SQLite slices
    /// each out of one blob.
    func testManyKeysAreAnsweredInOneReadInTheirOrder() throws {
        let store = try makeStore()
        let otherApp = AppID("com.example.other")!
        func token(_ number: Int) -> DeviceToken {
            DeviceToken(bytes: [UInt8(number >> 8), UInt8(number & 0xFF)] + Array(repeating: 7, count: number % 40))
        }
        // 500 accounts, each channel a device of its own app: 1,000 devices.
        for account in 0..<500 {
            try store.saveAccountTokens(
                selector: "account-\(account)", username: nil,
                tokens: [
                    ChannelToken(
                        channel: .calls, appID: Fixture.apnsAppID, token: token(account), reportedToken: "\(account)"),
                    ChannelToken(channel: .msgs, appID: otherApp, token: token(account), reportedToken: "\(account)"),
                ])
        }
        func key(_ appID: AppID, _ token: DeviceToken) -> String { appID.rawValue + "/" + token.hex }
        let stored = try store.devices()
        XCTAssertEqual(stored.count, 1_000)
        var ids: [String: Int64] = [:]
        for device in stored {
            ids[key(device.appID, device.token)] = device.id
            if device.id % 3 != 2 { try store.setSandbox(device.id % 3 == 0, deviceID: device.id) }
        }
        func sandbox(_ id: Int64) -> Bool? { id % 3 == 2 ? nil : id % 3 == 0 }

        // Every device, the order reversed.
        let all: [(appID: AppID, token: DeviceToken)] = (0..<500).reversed().flatMap {
            [(otherApp, token($0)), (Fixture.apnsAppID, token($0))]
        }
        let found = try store.storedDevices(all)
        XCTAssertEqual(found.count, 1_000)
        XCTAssertEqual(found.map { $0?.id }, all.map { ids[key($0.appID, $0.token)] })
        XCTAssertEqual(found.map { $0?.appID }, all.map(\.appID))
        XCTAssertEqual(found.map { $0?.token }, all.map(\.token))
        for device in found.compactMap({ $0 }) { XCTAssertEqual(device.sandbox, sandbox(device.id)) }

        // Unknown keys among known ones, a key asked three times, a token one byte short of
        // a stored one, the most that one statement asks (1,000) with half of them unknown.
        let tokenOf41 = token(41)
        let mixed: [(appID: AppID, token: DeviceToken)] = [
            (Fixture.apnsAppID, token(5)), (Fixture.apnsAppID, token(900)), (Fixture.apnsAppID, token(5)),
            (AppID("com.example.unknown")!, token(5)), (otherApp, token(499)),
            (Fixture.apnsAppID, DeviceToken(bytes: Array(tokenOf41.bytes.dropLast()))), (Fixture.apnsAppID, token(5)),
        ]
        XCTAssertEqual(
            try store.storedDevices(mixed).map { $0?.id },
            [
                ids[key(Fixture.apnsAppID, token(5))], nil, ids[key(Fixture.apnsAppID, token(5))], nil,
                ids[key(otherApp, token(499))], nil, ids[key(Fixture.apnsAppID, token(5))],
            ])
        let halfUnknown: [(appID: AppID, token: DeviceToken)] = (0..<1_000).map { (Fixture.apnsAppID, token($0)) }
        XCTAssertEqual(
            try store.storedDevices(halfUnknown).map { $0?.id },
            (0..<1_000).map { $0 < 500 ? ids[key(Fixture.apnsAppID, token($0))] : nil })

        // One key, the common send, and two keys both unknown.
        let one = try store.storedDevices([(otherApp, token(3))])
        XCTAssertEqual(one.map { $0?.id }, [ids[key(otherApp, token(3))]])
        let oneDevice = try XCTUnwrap(one.first ?? nil)
        XCTAssertEqual(oneDevice.sandbox, sandbox(oneDevice.id))
        XCTAssertEqual(try store.storedDevices([(otherApp, token(700)), (otherApp, token(701))]), [nil, nil])
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
