import PushCore

/// One Token Reporter report as the store writes it: the account's tokens per channel, when
/// it was made. What `PostgreSQLStore` queues to write together with its neighbours.
struct AccountReport: Sendable {
    var selector: String
    /// nil: keep the username the account has.
    var username: String?
    var tokens: [ChannelToken]
    var now: Int64
}
