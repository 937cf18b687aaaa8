/// A set of positions in the configuration kept in ascending order, so that the first few are read without looking
/// at the others: inserting and removing search in logarithmic time, reading the first `k` costs `k`.
struct OrderedRanks: Sendable, Equatable {
    private(set) var ranks: [Int] = []

    var count: Int { ranks.count }
    var isEmpty: Bool { ranks.isEmpty }

    mutating func insert(_ rank: Int) {
        let index = insertionIndex(of: rank)
        guard index == ranks.count || ranks[index] != rank else { return }
        ranks.insert(rank, at: index)
    }

    mutating func remove(_ rank: Int) {
        let index = insertionIndex(of: rank)
        guard index < ranks.count, ranks[index] == rank else { return }
        ranks.remove(at: index)
    }

    /// The `limit` lowest ranks, in ascending order.
    func prefix(_ limit: Int) -> ArraySlice<Int> {
        ranks.prefix(max(0, limit))
    }

    /// The `limit` lowest ranks of `self` and `other` together, in ascending order.
    func prefix(_ limit: Int, mergedWith other: OrderedRanks) -> [Int] {
        var merged: [Int] = []
        var (mine, theirs) = (ranks.startIndex, other.ranks.startIndex)
        while merged.count < limit, mine < ranks.endIndex || theirs < other.ranks.endIndex {
            if theirs == other.ranks.endIndex || (mine < ranks.endIndex && ranks[mine] < other.ranks[theirs]) {
                merged.append(ranks[mine])
                mine += 1
            } else {
                merged.append(other.ranks[theirs])
                theirs += 1
            }
        }
        return merged
    }

    /// The index of the first rank not below `rank`.
    private func insertionIndex(of rank: Int) -> Int {
        var (low, high) = (0, ranks.count)
        while low < high {
            let middle = (low + high) / 2
            if ranks[middle] < rank { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
