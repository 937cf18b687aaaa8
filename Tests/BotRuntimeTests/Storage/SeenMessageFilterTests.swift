@testable import BotRuntime
import Testing

/// The filter of seen ids answers "no" only for ids it was never given, and says when it holds more than it was
/// sized for.
@Suite("Seen message filter")
struct SeenMessageFilterTests {
    @Test func everyInsertedIdMightBeContained() {
        var filter = SeenMessageFilter(expecting: 1_000)
        let ids = (0..<1_000).map { "01JF-message-\($0)" }
        for id in ids { filter.insert(id) }
        #expect(ids.allSatisfy { filter.mightContain($0) })
    }

    @Test func anEmptyFilterRulesEveryIdOut() {
        let filter = SeenMessageFilter(expecting: 0)
        #expect((0..<1_000).allSatisfy { !filter.mightContain("01JF-message-\($0)") })
    }

    /// At its capacity it rules out nearly every id it was not given (about 1 % are "maybe"s).
    @Test func aFullFilterRulesOutMostOtherIds() {
        var filter = SeenMessageFilter(expecting: 500)
        for index in 0..<filter.capacity { filter.insert("seen-\(index)") }
        let maybes = (0..<10_000).count { filter.mightContain("other-\($0)") }
        #expect(maybes < 500)
    }

    @Test func itIsFullOnlyPastItsCapacity() {
        var filter = SeenMessageFilter(expecting: 10)
        #expect(filter.capacity == SeenMessageFilter.minimumCapacity)
        for index in 0..<filter.capacity { filter.insert("seen-\(index)") }
        #expect(!filter.isFull)
        filter.insert("one-more")
        #expect(filter.isFull)
        #expect(filter.count == filter.capacity + 1)
    }
}
