import PushCore

// AppCatalog: the apps operators registered.
extension SQLStore {
    /// A registered app is remembered for a second (see `RecentApps`): after `apps add
    /// --replace` or `apps remove` in another process, pushes may use the old app for up to
    /// that long. An app added there is found at once.
    public func app(id: AppID) throws -> RegisteredApp? {
        try recentApps.apps.answer(for: id, keep: { $0 != nil }) {
            try withDatabase { try AppTable.app(id: id, in: $0) }
        }
    }

    /// Remembered for a second, unknown apps too (see `RecentApps`): after `apps add|remove`
    /// in another process, a serving thread may answer from the old catalog for up to that long.
    public func platform(of id: AppID) throws -> Platform? {
        try recentApps.platforms.answer(for: id) {
            try withDatabase { try AppTable.platform(of: id, in: $0) }
        }
    }

    public func apps() throws -> [RegisteredApp] {
        try withDatabase { try AppTable.apps(in: $0) }
    }

    public func addApp(_ app: RegisteredApp, replacing: Bool) throws {
        defer { recentApps.forget() }
        let now = clock()
        try write { database in
            if !replacing, try AppTable.exists(app.id, in: database) {
                throw AppCatalogError.duplicateApp(app.id)
            }
            // A Beams instance has one app per platform: refuse in words, before the
            // primary key of beams_instances would in SQL.
            if let appKey = app.appKey,
                let holder = try BeamsInstanceTable.holder(appKey: appKey, platform: app.platform, in: database),
                holder != app.id
            {
                throw AppCatalogError.appKeyTaken(appKey: appKey, platform: app.platform, holder: holder)
            }
            try AppTable.upsert(app, now: now, in: database)
            // Tokens reported before the app was known get their platform now.
            try DeviceTable.setPlatform(app.platform, appID: app.id, in: database)
        }
    }

    public func removeApp(id: AppID) throws -> Bool {
        defer { recentApps.forget() }
        return try write { database in
            // Beams clients exist only within their app (the schema cascades them away); their
            // devices would be left with no owner, so they go too. Other devices stay, with no
            // platform until the app is added back.
            let beamsDevices = try BeamsClientTable.deleteClients(appID: id, in: database)
            let removed = try AppTable.delete(id: id, in: database)
            try DeviceTable.setPlatform(nil, appID: id, in: database)
            try DeviceTable.deleteOwnerless(beamsDevices, in: database)
            return removed
        }
    }
}
