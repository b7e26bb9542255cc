/// Which APNs a mock plays: `api.push.apple.com` or `api.sandbox.push.apple.com`. A device
/// token belongs to one of them; sent to the other it is a `BadDeviceToken`.
public enum APNsEnvironment: String, Sendable, Equatable, CaseIterable {
    case production
    case sandbox
}
