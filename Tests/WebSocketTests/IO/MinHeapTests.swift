import Testing

@testable import WebSocket

@Suite("MinHeap")
struct MinHeapTests {
    @Test func itemsPopInKeyOrder() {
        var heap = MinHeap<Double, Int>()
        var generator = SystemRandomNumberGenerator()
        let keys = (0..<500).map { _ in Double.random(in: 0..<1000, using: &generator) }
        for (index, key) in keys.enumerated() { heap.push(index, key: key) }
        var popped: [Double] = []
        while let item = heap.popMin() { popped.append(item.key) }
        #expect(popped == keys.sorted())
    }

    @Test func theItemsPickedAreDroppedAndTheRestPopInKeyOrder() {
        // Values 0…299 at scrambled keys: 7 is prime to 300, so each key comes once.
        func key(_ value: Int) -> Int { value * 7 % 300 }
        var heap = MinHeap<Int, Int>()
        for value in 0..<300 { heap.push(value, key: key(value)) }
        heap.removeAll { $0.value % 3 != 0 }
        heap.push(1000, key: -1)
        var popped: [Int] = []
        while let item = heap.popMin() { popped.append(item.value) }
        #expect(popped == [1000] + (0..<300).filter { $0 % 3 == 0 }.sorted { key($0) < key($1) })
    }

    @Test func countWhereCountsThePickedItemsAndTakeAllEmptiesTheHeap() {
        var heap = MinHeap<Int, String>()
        for key in [5, 1, 4, 2, 3] { heap.push("t\(key)", key: key) }
        #expect(heap.count { $0.key > 2 } == 3)
        #expect(heap.min?.value == "t1")
        #expect(Set(heap.takeAll().map(\.value)) == ["t1", "t2", "t3", "t4", "t5"])
        #expect(heap.count == 0)
        #expect(heap.popMin() == nil)
    }
}
