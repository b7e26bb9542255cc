/// One channel's link as stored: the device it pushes to and the username last reported,
/// and that device's row as the link was read (nil for a link the report itself wrote).
struct AcrobitsLink: Equatable {
    var deviceID: Int64
    var username: String?
    var device: LinkedDevice? = nil
}
