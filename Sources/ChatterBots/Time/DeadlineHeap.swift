import Foundation

/// A binary min-heap of (deadline, id), earliest first; ties keep no particular order. Its owners delete lazily: an
/// item whose id they no longer know is skipped when it reaches the top, or dropped with the others in one pass.
package struct DeadlineHeap: Sendable {
    package struct Item: Sendable, Equatable {
        package let deadline: Date
        package let id: UInt64
    }

    private var items: [Item] = []

    package init() {}

    package var min: Item? { items.first }
    package var count: Int { items.count }

    package mutating func push(_ deadline: Date, id: UInt64) {
        items.append(Item(deadline: deadline, id: id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    package mutating func popMin() -> Item? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return first }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            guard left < items.count else { break }
            let right = left + 1
            let smaller = right < items.count && items[right].deadline < items[left].deadline ? right : left
            guard items[smaller].deadline < items[parent].deadline else { break }
            items.swapAt(smaller, parent)
            parent = smaller
        }
        return first
    }

    package mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
    }

    /// Drops every item `shouldBeRemoved` picks, in one pass and one sort.
    package mutating func removeAll(where shouldBeRemoved: (Item) -> Bool) {
        // A sorted array is a valid min-heap.
        items = items.filter { !shouldBeRemoved($0) }.sorted { $0.deadline < $1.deadline }
    }
}
