import ChatterBots

/// What a session's `DeadlineScheduler` wakes it for.
package enum SessionDeadline: Hashable, Sendable {
    /// The lifecycle's `nextDeadline` (connect and ready timeouts, the end of a reconnect wait).
    case lifecycle
    /// The heartbeat of the connection of this generation (the next ping, or a pong's deadline).
    case heartbeat(generation: UInt64)
    /// The next `typing.start` of the indicator shown in this conversation.
    case typing(Conversation.ID)
    /// The next look at the gap messages of this conversation are parked behind.
    case gapCheck(Conversation.ID)
    /// The next look-up of this conversation, which the bot does not know yet, after one failed.
    case conversationLookup(Conversation.ID)
    /// The next time this conversation's lane asks the store where it stands, after a read failed.
    case laneVerification(Conversation.ID)
    /// The earliest scheduled job of the bot comes due (or the schedule is read again after a failure).
    case jobs
    /// The deadline of a running shutdown for handlers and commits to finish.
    case shutdown
    /// The earliest deadline of the running handlers.
    case handlerTimeouts
    /// The end of the time `onStart` has to return.
    case startTimeout
    /// The end of the grace a crash suspect with this work key keeps its turn alone for after its timeout.
    case suspectGrace(String)
    /// The end of the wait for the connection's `presence.snapshot` before `onReady` (`ReadyGate`).
    case presenceSnapshot
}
