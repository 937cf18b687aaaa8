import ChatterBots
import Foundation
import Synchronization

/// The bot's "typing…" indicators: `typing.start` when shown and again every 3 s (the service ends typing after
/// 5 s without one), `typing.stop` when hidden. Best effort: nothing is sent while disconnected.
final class TypingIndicators: Sendable {
    /// How often `typing.start` is repeated while shown (the seed: every 3 seconds).
    static let repeatInterval: Duration = .seconds(3)

    private struct State {
        var shown: [Conversation.ID: (owner: ObjectIdentifier, task: Task<Void, Never>)] = [:]
        var link: RealtimeLink?
    }

    private let clock: any ChatterClock
    private let state = Mutex(State())

    init(clock: any ChatterClock) {
        self.clock = clock
    }

    func attach(_ link: RealtimeLink) {
        state.withLock { $0.link = link }
    }

    func detach(generation: UInt64) {
        state.withLock { state in
            if state.link?.generation == generation { state.link = nil }
        }
    }

    /// Shows typing in `conversation` on behalf of `owner` (a handler's context) until it is hidden.
    func show(in conversation: Conversation.ID, owner: ObjectIdentifier) {
        state.withLock { state in
            if let current = state.shown[conversation] {
                state.shown[conversation] = (owner, current.task)
            } else {
                state.shown[conversation] = (owner, Task(executorPreference: SessionExecutor.preferred) { await self.repeatStart(in: conversation) })
            }
        }
    }

    /// Hides typing in `conversation` (sending `typing.stop`).
    func hide(in conversation: Conversation.ID) {
        let (task, link) = state.withLock { state in
            (state.shown.removeValue(forKey: conversation)?.task, state.link)
        }
        guard let task else { return }
        task.cancel()
        if let link {
            Task(executorPreference: SessionExecutor.preferred) { try? await link.connection.send(.typingStop(conversationId: conversation)) }
        }
    }

    /// Hides every indicator `owner` shows (its handler returned).
    func hideAll(of owner: ObjectIdentifier) {
        let conversations = state.withLock { state in
            state.shown.filter { $0.value.owner == owner }.map(\.key)
        }
        for conversation in conversations { hide(in: conversation) }
    }

    /// Whether typing is shown in `conversation`.
    func isShown(in conversation: Conversation.ID) -> Bool {
        state.withLock { $0.shown[conversation] != nil }
    }

    private func repeatStart(in conversation: Conversation.ID) async {
        while !Task.isCancelled {
            if let link = state.withLock({ $0.link }) {
                try? await link.connection.send(.typingStart(conversationId: conversation))
            }
            do {
                try await clock.sleep(for: Self.repeatInterval)
            } catch {
                return
            }
        }
    }
}
