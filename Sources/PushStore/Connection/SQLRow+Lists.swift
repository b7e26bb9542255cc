import Foundation
import PushCore

// Lists bound as one value, so that a batch of rows is one statement instead of one per row
// (the outbox completes a thousand rows at a time). SQLite reads the list as a JSON array
// with `json_each(?N)`; PostgreSQL as an array with `= ANY(?N)` or `unnest(?N, …)`.

extension Statement {
    public func bindList(_ values: [Int64], at index: Int32) throws {
        try bind("[" + values.map(String.init).joined(separator: ",") + "]", at: index)
    }

    public func bindList(_ values: [String?], at index: Int32) throws {
        let list = JSONValue.array(values.map { $0.map(JSONValue.string) ?? .null })
        try bind(String(decoding: list.encoded(), as: UTF8.self), at: index)
    }
}
