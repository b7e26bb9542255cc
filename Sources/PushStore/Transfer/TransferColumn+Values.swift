import Foundation

extension TransferColumn {
    /// This column of the current row, as an export writes it.
    func value(of row: some SQLRow, at index: Int32) -> TransferValue {
        if row.isNull(index) { return .null }
        switch kind {
        case .text: return row.string(index).map(TransferValue.text) ?? .null
        case .integer, .rowID, .reference: return .integer(row.int64(index))
        case .blob: return row.blob(index).map { .text(Data($0).base64EncodedString()) } ?? .null
        }
    }

    /// Binds `value` from an export line to parameter `index`, refusing a value of the wrong
    /// kind (the reader adds the line number). References are mapped before they get here.
    func bind(_ value: TransferValue, to row: some SQLRow, at index: Int32) throws {
        switch (kind, value) {
        case (.text, .null): try row.bind(String?.none, at: index)
        case (.integer, .null), (.rowID, .null), (.reference, .null): try row.bind(Int64?.none, at: index)
        case (.blob, .null): try row.bind([UInt8]?.none, at: index)
        case (.text, .text(let text)): try row.bind(text, at: index)
        case (.integer, .integer(let number)), (.rowID, .integer(let number)), (.reference, .integer(let number)):
            try row.bind(number, at: index)
        case (.blob, .text(let base64)):
            guard let data = Data(base64Encoded: base64) else {
                throw TransferError.malformed(line: 0, "\"\(name)\" is not base64")
            }
            try row.bind([UInt8](data), at: index)
        case (.text, .integer):
            throw TransferError.malformed(line: 0, "\"\(name)\" must be a string or null, not a number")
        case (.integer, .text), (.rowID, .text), (.reference, .text):
            throw TransferError.malformed(line: 0, "\"\(name)\" must be an integer or null, not a string")
        case (.blob, .integer):
            throw TransferError.malformed(line: 0, "\"\(name)\" must be a base64 string or null, not a number")
        }
    }
}
