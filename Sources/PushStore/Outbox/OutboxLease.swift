/// A claim on outbox rows: the node that holds them and the end of its lease (unix ms),
/// which is also when the rows are due again should the node die holding them.
struct OutboxLease {
    var until: Int64
    var node: String
}
