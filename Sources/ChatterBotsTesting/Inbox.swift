import Synchronization

/// What a test user observed on its socket of one kind (messages, message updates, typing, receipts), in arrival
/// order, and the callers waiting for an item. Items that arrive before anyone asks are kept, so a test never
/// races its bot: `take` removes the first item that matches, `first` waits for one and leaves it.
final class Inbox<Item: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let matches: @Sendable (Item) -> Bool
        let takes: Bool
        let continuation: CheckedContinuation<Item, any Error>
    }

    private enum Registration {
        case found(Item), cancelled, waiting
    }

    private struct State {
        var items: [Item] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Adds an item: every waiter it matches gets it, and it stays unless one of them takes it.
    func deliver(_ item: Item) {
        let served = state.withLock { state -> [Waiter] in
            var served: [Waiter] = []
            var taken = false
            state.waiters.removeAll { waiter in
                guard !taken, waiter.matches(item) else { return false }
                served.append(waiter)
                taken = waiter.takes
                return true
            }
            if !taken { state.items.append(item) }
            return served
        }
        for waiter in served { waiter.continuation.resume(returning: item) }
    }

    /// Removes and returns the first item that matches, waiting for one to arrive; cancelling the task ends the
    /// wait with `CancellationError`.
    func take(where matches: @escaping @Sendable (Item) -> Bool) async throws -> Item {
        try await wait(for: matches, taking: true)
    }

    /// Returns the first item that matches, waiting for one to arrive, and leaves it in the inbox (for states,
    /// such as watermarks, that several waits may ask about).
    func first(where matches: @escaping @Sendable (Item) -> Bool) async throws -> Item {
        try await wait(for: matches, taking: false)
    }

    /// Removes and returns every item that matches, without waiting.
    func takeAll(where matches: (Item) -> Bool) -> [Item] {
        state.withLock { state in
            let taken = state.items.filter(matches)
            state.items.removeAll(where: matches)
            return taken
        }
    }

    private func wait(for matches: @escaping @Sendable (Item) -> Bool, taking: Bool) async throws -> Item {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Item, any Error>) in
                let registration = state.withLock { state -> Registration in
                    if let index = state.items.firstIndex(where: matches) {
                        return .found(taking ? state.items.remove(at: index) : state.items[index])
                    }
                    if Task.isCancelled { return .cancelled }
                    state.waiters.append(Waiter(id: id, matches: matches, takes: taking, continuation: continuation))
                    return .waiting
                }
                switch registration {
                case .found(let item): continuation.resume(returning: item)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }
}
