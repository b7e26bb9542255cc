import PushCore

extension SQLRow {
    /// The channel stored in `column` of an `acrobits_accounts` row of `selector`; a value no
    /// channel has is the stored data's fault, named as such.
    func acrobitsChannel(_ column: Int32, selector: String) throws -> AcrobitsChannel {
        // Compared where the engine keeps the text: every report reads its links' channels.
        if let channel = AcrobitsChannel.allCases.first(where: { text(column, is: $0.rawValue) }) { return channel }
        let raw = string(column)
        guard let channel = raw.flatMap(AcrobitsChannel.init(rawValue:)) else {
            throw StoredValueError(
                table: "acrobits_accounts", column: "channel", value: raw ?? "NULL", rowKey: selector)
        }
        return channel
    }
}
