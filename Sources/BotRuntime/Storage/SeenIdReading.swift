/// The reading of a store's `seen_messages` into a ``SeenMessageFilter``, a bounded step at a time, so that no
/// transaction waits for the whole table: first the rows are counted, to size the filter, then read in chunks in
/// message id order. Until the last chunk is in, the filter answers nothing and each id is looked up in SQLite. Once
/// the filter fills up it is read again, larger.
///
/// Every id written to the table must be inserted here; ids deleted from the table may stay in the filter.
struct SeenIdReading: Sendable {
    /// What to read next.
    enum Step: Equatable, Sendable {
        /// The number of rows in `seen_messages`.
        case count
        /// At most `limit` message ids, in order, after `after` (from the first when nil).
        case rows(after: String?, limit: Int)
    }

    /// The most rows one step reads.
    static let rowsPerStep = 1_024

    private enum State: Sendable {
        case unread
        case reading(SeenMessageFilter, after: String?)
        case whole(SeenMessageFilter)
    }

    private var state = State.unread

    /// The next read to carry out; nil while the filter is whole.
    var nextStep: Step? {
        switch state {
        case .unread: .count
        case .reading(_, let after): .rows(after: after, limit: Self.rowsPerStep)
        case .whole: nil
        }
    }

    /// Where the filter's bits are, while it is being read or whole (for tests).
    var filterBitsAddress: UnsafeRawPointer? {
        switch state {
        case .unread: nil
        case .reading(let filter, _), .whole(let filter): filter.bitsAddress
        }
    }

    /// Whether `id` may be in the table: nil until the filter is whole, false only when it surely is not.
    func mightContain(_ id: String) -> Bool? {
        guard case .whole(let filter) = state else { return nil }
        return filter.mightContain(id)
    }

    /// Takes the count of rows, as asked by ``Step/count``: reading begins with a filter sized for them.
    mutating func counted(_ rows: Int) {
        guard case .unread = state else { return }
        state = .reading(SeenMessageFilter(expecting: rows), after: nil)
    }

    /// Takes the ids read by `step`, a ``Step/rows(after:limit:)`` step; fewer than asked for ends the reading. Ids
    /// read for another step than ``nextStep`` are ignored: they could end a later reading before it read its rows.
    mutating func read(_ ids: [String], of step: Step) {
        guard step == nextStep, case .rows(_, let limit) = step, case .reading(var filter, let after) = state else { return }
        state = .unread  // so that the filter's bits have one owner and are not copied
        for id in ids { filter.insert(id) }
        state = ids.count < limit ? .whole(filter) : .reading(filter, after: ids.last ?? after)
    }

    /// Records an id written to the table, before its transaction commits (a rolled-back id only costs a lookup).
    /// An id written while the table is being read goes into the filter too, wherever the reading is. A filter that
    /// fills up is dropped, to be read again larger.
    mutating func insert(_ id: String) {
        switch state {
        case .unread:
            break
        case .reading(var filter, let after):
            state = .unread  // so that the filter's bits have one owner and are not copied
            filter.insert(id)
            state = .reading(filter, after: after)
        case .whole(var filter):
            state = .unread
            filter.insert(id)
            state = filter.isFull ? .unread : .whole(filter)
        }
    }
}
