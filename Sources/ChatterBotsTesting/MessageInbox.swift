import ChatterBots
import Synchronization

/// The messages a test user received over its socket, in arrival order, and the callers waiting for one.
/// Each message is taken once: `take` removes the first that matches.
final class MessageInbox: Sendable {
    private struct Waiter {
        let id: UInt64
        let matches: @Sendable (Message) -> Bool
        let continuation: CheckedContinuation<Message, any Error>
    }

    private struct State {
        var messages: [Message] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        /// Every message id seen, so a duplicated `message.new` (a sandbox fault) is kept once.
        var seen: Set<Message.ID> = []
    }

    private let state = Mutex(State())

    /// Adds a message, or hands it to the first waiter it matches.
    func deliver(_ message: Message) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.seen.insert(message.id).inserted else { return nil }
            if let index = state.waiters.firstIndex(where: { $0.matches(message) }) {
                return state.waiters.remove(at: index)
            }
            state.messages.append(message)
            return nil
        }
        waiter?.continuation.resume(returning: message)
    }

    /// Removes and returns the first message that matches, waiting for one to arrive; cancelling the task ends
    /// the wait with `CancellationError`.
    func take(where matches: @escaping @Sendable (Message) -> Bool) async throws -> Message {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Message, any Error>) in
                enum Registration { case found(Message), cancelled, waiting }
                let registration = state.withLock { state -> Registration in
                    if let index = state.messages.firstIndex(where: matches) {
                        return .found(state.messages.remove(at: index))
                    }
                    if Task.isCancelled { return .cancelled }
                    state.waiters.append(Waiter(id: id, matches: matches, continuation: continuation))
                    return .waiting
                }
                switch registration {
                case .found(let message): continuation.resume(returning: message)
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

    /// Removes and returns every message that matches, without waiting.
    func takeAll(where matches: (Message) -> Bool) -> [Message] {
        state.withLock { state in
            let taken = state.messages.filter(matches)
            state.messages.removeAll(where: matches)
            return taken
        }
    }
}
