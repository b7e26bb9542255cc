import PushCore

extension PostgreSQLStore {
    /// A Token Reporter report on PostgreSQL: `saveAccountTokens`' statements run by the
    /// schema's `pushgate_save_account_tokens` (migration 0005) in one round trip.
    ///
    /// READ COMMITTED, not the SERIALIZABLE of every other write: under concurrent reports of
    /// new accounts, serializable snapshots rolled back about one report in two (their index
    /// look-ups of rows not there yet lock whole pages), and each ran again. The function
    /// takes the locks it relies on instead: an advisory lock on the selector (two reports of
    /// one account run one after the other) and `FOR UPDATE` on a device before it deletes it
    /// as ownerless (a link another transaction is adding then either waits or is seen). A
    /// device inserted or deleted by another transaction meanwhile is a unique or foreign key
    /// violation, and the report runs again.
    func saveAccountTokensInOneCall(selector: String, username: String?, tokens: [ChannelToken], now: Int64) throws {
        try pool.withConnection { connection in
            try connection.lockingWriteTransaction {
                try AcrobitsAccountTable.saveInOneCall(
                    selector: selector, username: username, tokens: tokens, now: now, in: connection)
            }
        }
    }
}
