import ChatterBots
import Foundation
import Synchronization

/// The bot's "typing…" indicators: `typing.start` when shown and again every 3 s (the service ends typing after
/// 5 s without one), `typing.stop` when hidden. The repeats are deadlines on the session's `DeadlineScheduler`,
/// and the frames go out, in order, on the current connection's sender (of its `ConnectionScope`). Best effort:
/// nothing is sent while disconnected.
final class TypingIndicators: Sendable {
    /// How often `typing.start` is repeated while shown (the seed: every 3 seconds).
    static let repeatInterval: Duration = .seconds(3)

    private struct State {
        /// The conversations typing is shown in, and who shows it (a handler's context).
        var shown: [Conversation.ID: ObjectIdentifier] = [:]
        var connection: (link: RealtimeLink, tasks: ConnectionTasks)?
    }

    private let clock: any ChatterClock
    private let timers: DeadlineScheduler<SessionDeadline>
    private let state = Mutex(State())

    init(clock: any ChatterClock, timers: DeadlineScheduler<SessionDeadline>) {
        self.clock = clock
        self.timers = timers
    }

    /// Sends on `link` from now on, through its scope's sender.
    func attach(_ link: RealtimeLink, tasks: ConnectionTasks) {
        state.withLock { $0.connection = (link, tasks) }
    }

    func detach(generation: UInt64) {
        state.withLock { state in
            if state.connection?.link.generation == generation { state.connection = nil }
        }
    }

    /// Shows typing in `conversation` on behalf of `owner` (a handler's context) until it is hidden.
    func show(in conversation: Conversation.ID, owner: ObjectIdentifier) {
        let isNew = state.withLock { state -> Bool in
            let isNew = state.shown[conversation] == nil
            state.shown[conversation] = owner
            return isNew
        }
        if isNew { repeatStart(in: conversation) }
    }

    /// Hides typing in `conversation` (sending `typing.stop`).
    func hide(in conversation: Conversation.ID) {
        guard send(.typingStop(conversationId: conversation), ifShownIn: conversation, hiding: true) else { return }
        timers.cancel(.typing(conversation))
    }

    /// Hides every indicator `owner` shows (its handler returned).
    func hideAll(of owner: ObjectIdentifier) {
        let conversations = state.withLock { state in
            state.shown.filter { $0.value == owner }.map(\.key)
        }
        for conversation in conversations { hide(in: conversation) }
    }

    /// Whether typing is shown in `conversation`.
    func isShown(in conversation: Conversation.ID) -> Bool {
        state.withLock { $0.shown[conversation] != nil }
    }

    /// Sends `typing.start` while typing is shown in `conversation`, and comes back after the repeat interval.
    private func repeatStart(in conversation: Conversation.ID) {
        guard send(.typingStart(conversationId: conversation), ifShownIn: conversation, hiding: false) else { return }
        timers.schedule(.typing(conversation), at: clock.now.adding(Self.repeatInterval)) { [self] in
            repeatStart(in: conversation)
        }
    }

    /// Sends `request` on the current connection's sender (nothing while disconnected) if typing is shown in
    /// `conversation`, and hides it when `hiding`; returns whether it was shown. Deciding and queueing the frame under
    /// one lock keeps the frames in the order of the decisions: a repeat cannot follow the `typing.stop` of a hide
    /// that came between its check and its send.
    private func send(_ request: ClientRequest, ifShownIn conversation: Conversation.ID, hiding: Bool) -> Bool {
        state.withLock { state in
            guard state.shown[conversation] != nil else { return false }
            if hiding { state.shown[conversation] = nil }
            state.connection?.tasks.send(request)
            return true
        }
    }
}
