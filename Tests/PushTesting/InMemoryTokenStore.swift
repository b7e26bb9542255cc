import Foundation
import PushCore

/// A `TokenStore` in memory with the SQL store's semantics, for handler tests that need no
/// database. Counts writes so tests can prove a refused request wrote nothing.
public final class InMemoryTokenStore: TokenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var registered: [AppID: RegisteredApp] = [:]
    private var stored: [StoredDevice] = []
    private var links: [String: (channel: AcrobitsChannel, username: String?, deviceID: Int64)] = [:]
    private var nextID: Int64 = 1
    public private(set) var writeCount = 0

    public init() {}

    public func app(id: AppID) throws -> RegisteredApp? {
        lock.withLock { registered[id] }
    }

    public func platform(of id: AppID) throws -> Platform? {
        lock.withLock { registered[id]?.platform }
    }

    public func apps() throws -> [RegisteredApp] {
        lock.withLock { registered.values.sorted { $0.id < $1.id } }
    }

    public func addApp(_ app: RegisteredApp, replacing: Bool) throws {
        try lock.withLock {
            if registered[app.id] != nil && !replacing { throw AppCatalogError.duplicateApp(app.id) }
            writeCount += 1
            registered[app.id] = app
            for index in stored.indices where stored[index].appID == app.id {
                stored[index].platform = app.platform
            }
        }
    }

    public func removeApp(id: AppID) throws -> Bool {
        lock.withLock {
            writeCount += 1
            return registered.removeValue(forKey: id) != nil
        }
    }

    public func saveAccountTokens(selector: String, username: String?, tokens: [ChannelToken]) throws {
        lock.withLock {
            writeCount += 1
            for token in tokens {
                let deviceID = upsertDevice(token)
                let key = "\(selector)\u{0}\(token.channel.rawValue)"
                let previous = links[key]?.deviceID
                links[key] = (token.channel, username ?? links[key]?.username, deviceID)
                if let previous, previous != deviceID { dropIfOwnerless(previous) }
            }
        }
    }

    public func saveAccountTokens(
        selector: String, username: String?, tokens: [ChannelToken], admittingNewDevices: () throws -> Void
    ) throws {
        guard !tokens.isEmpty else { return }
        let keepsDevices = lock.withLock {
            tokens.allSatisfy { token in
                guard let link = links["\(selector)\u{0}\(token.channel.rawValue)"] else { return false }
                return stored.contains { $0.id == link.deviceID && $0.appID == token.appID && $0.token == token.token }
            }
        }
        if !keepsDevices { try admittingNewDevices() }
        try saveAccountTokens(selector: selector, username: username, tokens: tokens)
    }

    public func removeAccount(selector: String) throws -> Int {
        lock.withLock {
            writeCount += 1
            var removed = 0
            for channel in AcrobitsChannel.allCases {
                if let link = links.removeValue(forKey: "\(selector)\u{0}\(channel.rawValue)") {
                    removed += 1
                    dropIfOwnerless(link.deviceID)
                }
            }
            return removed
        }
    }

    public func devices() throws -> [StoredDevice] {
        lock.withLock {
            stored.map { device in
                var device = device
                device.owners = links.compactMap { key, link in
                    guard link.deviceID == device.id else { return nil }
                    let selector = String(key.split(separator: "\u{0}")[0])
                    return DeviceOwner.acrobitsAccount(selector: selector, channel: link.channel, username: link.username)
                }
                return device
            }
        }
    }

    private func upsertDevice(_ token: ChannelToken) -> Int64 {
        if let index = stored.firstIndex(where: { $0.appID == token.appID && $0.token == token.token }) {
            stored[index].reportedToken = token.reportedToken
            return stored[index].id
        }
        let id = nextID
        nextID += 1
        stored.append(
            StoredDevice(
                id: id, appID: token.appID, platform: registered[token.appID]?.platform, token: token.token,
                reportedToken: token.reportedToken, sandbox: nil, createdAt: 0, updatedAt: 0, owners: []))
        return id
    }

    private func dropIfOwnerless(_ deviceID: Int64) {
        if !links.values.contains(where: { $0.deviceID == deviceID }) {
            stored.removeAll { $0.id == deviceID }
        }
    }
}
