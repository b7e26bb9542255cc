/// What a Token Reporter report would do to its account's stored links, read before it is
/// written (`AcrobitsLinkQuery.standing(of:in:)`).
enum ReportStanding: Equatable {
    /// Every channel links to its token's device already, under the same username, and the
    /// device recorded the same spelling today: nothing to write.
    case changesNothing
    /// Every channel links to its token's device already; a username, a spelling or the
    /// device's day is written.
    case keepsDevices
    /// A channel is new or links to another device: the report may create a device.
    case changesDevices
}
