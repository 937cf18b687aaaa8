/// A binary min-heap of values by key, smallest key first; ties keep no particular order. The event loop keeps its
/// timers in one, and the realtime and runtime modules their deadlines. Owners that delete lazily skip a stale item
/// when it reaches the top, or drop many at once with `removeAll(where:)`.
package struct MinHeap<Key: Comparable, Value> {
    package struct Item {
        package let key: Key
        package let value: Value

        @usableFromInline init(key: Key, value: Value) {
            self.key = key
            self.value = value
        }
    }

    @usableFromInline var items: [Item] = []

    package init() {}

    /// The item with the smallest key.
    @inlinable package var min: Item? { items.first }

    @inlinable package var count: Int { items.count }

    /// How many items `isCounted` picks, in one pass.
    @inlinable package func count(where isCounted: (Item) -> Bool) -> Int { items.count(where: isCounted) }

    @inlinable package mutating func push(_ value: Value, key: Key) {
        items.append(Item(key: key, value: value))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].key < items[parent].key else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    @inlinable @discardableResult package mutating func popMin() -> Item? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return first }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { break }
            let right = left + 1
            let smaller = right < items.count && items[right].key < items[left].key ? right : left
            guard items[smaller].key < items[parent].key else { break }
            items.swapAt(smaller, parent)
            parent = smaller
        }
        return first
    }

    /// Empties the heap, keeping its storage for the items to come.
    @inlinable package mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
    }

    /// Empties the heap, returning its items in no particular order.
    @inlinable package mutating func takeAll() -> [Item] {
        defer { items = [] }
        return items
    }

    /// Drops every item `shouldBeRemoved` picks, in one pass and one sort.
    @inlinable package mutating func removeAll(where shouldBeRemoved: (Item) -> Bool) {
        // A sorted array is a valid min-heap.
        items = items.filter { !shouldBeRemoved($0) }.sorted { $0.key < $1.key }
    }
}

extension MinHeap: Sendable where Key: Sendable, Value: Sendable {}
extension MinHeap.Item: Sendable where Key: Sendable, Value: Sendable {}
extension MinHeap.Item: Equatable where Key: Equatable, Value: Equatable {}
