import PushCore

/// What a caller without a key must pass to create a device or client: its address's quota
/// (`NewDeviceQuota`) and the app's ceiling (`AppDeviceCeiling`). Shared by the four dialects
/// that create for such callers: the Token Reporter, the Beams device and client APIs and the
/// bridge. A request that may create is admitted first, so that a refused one stores nothing;
/// then it says whether it created.
public struct NewDeviceGate: Sendable {
    public let quota: NewDeviceQuota
    public let ceiling: AppDeviceCeiling

    public init(quota: NewDeviceQuota, ceiling: AppDeviceCeiling = .none) {
        self.quota = quota
        self.ceiling = ceiling
    }

    /// No quota and no ceiling.
    public static var open: NewDeviceGate { NewDeviceGate(quota: .unlimited) }

    /// Whether neither a quota nor a ceiling is set: then nothing need be told apart.
    public var isOpen: Bool { quota.limits.perHour == nil && ceiling.maximum == nil }

    /// Why a new device was refused; each dialect words it in its own shape.
    public enum Refusal: Error, Equatable {
        /// The address created its quota within the hour: 429 with `Retry-After`.
        case addressQuota(retryAfterSeconds: Int)
        /// The app has `maximum` devices: 507.
        case appCeiling(app: AppID, maximum: Int)
    }

    /// One admitted request's place in the counts, to settle once the store answered.
    public struct Ticket: Sendable {
        let charge: NewDeviceQuota.Charge?
        let apps: [AppID]
    }

    /// Admits a request that may create a device of each of `apps`, or throws `Refusal`.
    /// `alreadyStored` (a read) is asked only when the address has spent its quota: a request
    /// for a device stored already then goes through uncounted.
    public func admit(address: String, apps: [AppID], alreadyStored: () throws -> Bool) throws -> Ticket {
        // Both channels of a report may name one app: it is one app's check.
        let apps = apps.reduce(into: [AppID]()) { kept, app in if !kept.contains(app) { kept.append(app) } }
        let charge: NewDeviceQuota.Charge
        switch try quota.admit(address: address, alreadyStored: alreadyStored) {
        case .stored: return Ticket(charge: nil, apps: [])
        case .refused(let seconds): throw Refusal.addressQuota(retryAfterSeconds: seconds)
        case .charged(let taken): charge = taken
        }
        do {
            for app in apps where try !ceiling.admits(app) {
                throw Refusal.appCeiling(app: app, maximum: ceiling.maximum ?? 0)
            }
        } catch {
            quota.giveBack(charge)
            throw error
        }
        return Ticket(charge: charge, apps: apps)
    }

    /// Admits a request as `admit` does (a refusal thrown as `refused` words it, in the caller's
    /// dialect), runs `store`, and settles the counts by whether it created.
    public func creating<Stored>(
        address: String, apps: [AppID], alreadyStored: () throws -> Bool = { false },
        refused: (Refusal) -> any Error, _ store: () throws -> (Stored, created: Bool)
    ) throws -> Stored {
        let ticket: Ticket
        do {
            ticket = try admit(address: address, apps: apps, alreadyStored: alreadyStored)
        } catch let refusal as Refusal {
            throw refused(refusal)
        }
        var made = false
        defer { made ? created(ticket) : nothingCreated(ticket) }
        let stored = try store()
        made = stored.created
        return stored.0
    }

    /// The store created the device (or client): it stays counted.
    public func created(_ ticket: Ticket) {
        for app in ticket.apps { ceiling.created(app) }
    }

    /// The store created nothing (a repeat), or failed: the request counts for nothing.
    public func nothingCreated(_ ticket: Ticket) {
        if let charge = ticket.charge { quota.giveBack(charge) }
    }
}
