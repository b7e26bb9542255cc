import PushCore

/// Who may call the Matrix push gateway (`PUSHGATE_MATRIX_HOMESERVERS`): a homeserver sends no
/// credentials (a pusher holds only a URL), so its address is all there is to go by. nginx's
/// location allows the same list; `MatrixGateway` checks it again, so that a request that
/// reached the socket some other way is refused too.
public struct MatrixHomeservers: Sendable, Equatable, CustomStringConvertible {
    let addresses: AddressRanges

    /// Loopback only: a homeserver on the same machine.
    public static let loopbackListing = "127.0.0.0/8,::1"
    // The listing above parses: it is a constant the tests read too.
    // swiftlint:disable:next force_try
    public static let loopback = try! MatrixHomeservers(listing: loopbackListing)

    public typealias ListingError = AddressRanges.ListingError

    /// Reads addresses and CIDR ranges (`10.0.0.5`, `10.1.0.0/16`, `2001:db8::/32`) separated
    /// by commas or spaces.
    public init(listing: String) throws(ListingError) {
        addresses = try AddressRanges(listing: listing)
    }

    /// Whether a caller at `address` (the request's `REMOTE_ADDR`) may call. An IPv4 address
    /// written inside IPv6 (`::ffff:10.0.0.5`) is judged as the IPv4 address it is.
    public func allows(_ address: String) -> Bool { addresses.contains(address) }

    /// A range of prefix length 0 (`0.0.0.0/0`, `::/0`): anyone who can reach nginx may make
    /// pushgate push to any app open to Matrix. `pushgate doctor` warns.
    public var isOpenToEveryone: Bool { addresses.isOpenToEveryone }

    /// The list as the operator would write it.
    public var listing: String { addresses.listing }

    public var description: String { listing }
}
