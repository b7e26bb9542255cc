import Foundation
import PushCore

/// An app catalog that counts its reads, so that a test sees which pushes were looked up.
/// `@unchecked Sendable`: the counts are guarded by `lock`.
final class CountingCatalog: AppCatalog, @unchecked Sendable {
    private let inner: any AppCatalog
    private let lock = NSLock()
    private var appReads: [AppID] = []
    private var platformReads: [AppID] = []

    init(_ inner: any AppCatalog) {
        self.inner = inner
    }

    /// The ids `app(id:)` was asked for, in order.
    var appsRead: [AppID] { lock.withLock { appReads } }
    /// The ids `platform(of:)` was asked for, in order.
    var platformsRead: [AppID] { lock.withLock { platformReads } }

    func app(id: AppID) throws -> RegisteredApp? {
        lock.withLock { appReads.append(id) }
        return try inner.app(id: id)
    }

    func platform(of id: AppID) throws -> Platform? {
        lock.withLock { platformReads.append(id) }
        return try inner.platform(of: id)
    }

    func apps() throws -> [RegisteredApp] { try inner.apps() }
    func addApp(_ app: RegisteredApp, replacing: Bool) throws { try inner.addApp(app, replacing: replacing) }
    func removeApp(id: AppID) throws -> Bool { try inner.removeApp(id: id) }
}
