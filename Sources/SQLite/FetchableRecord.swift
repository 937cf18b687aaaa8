/// A type made from a row, so that queries can return it directly:
/// `try db.fetchAll(OutboxEntry.self, sql: "SELECT * FROM outbox ORDER BY id")`.
public protocol FetchableRecord {
    /// Reads the record from `row`; throw (typically by letting a typed column access throw) when the row
    /// does not fit.
    init(row: Row) throws
}
