/// Which `message.updated` frames run the handlers. Messages carry no version number, so an update is known only
/// by the state it leaves the message in (its `MessageUpdateFingerprint`), compared with the states of the
/// message handled recently (`HandledMessageUpdates`):
/// - the state the last handled update left: a copy of that frame (at-least-once delivery), skipped;
/// - a state not handled recently: a change, handled;
/// - an older handled state: either a late copy of that state's frame, or a real return to the state (a reaction
///   taken off and put back). The service settles it: when the message is in that state now, it is a return and
///   is handled; otherwise it is a late copy and skipped. Without an answer it is handled: in doubt a late copy
///   runs the handlers once more (with clientMessageIds of their own) rather than a change being lost.
///
/// A real return whose frame arrives after a further change (the service has already moved on) is skipped; the
/// next update is then compared with the last handled state, so what it reports still adds up.
struct MessageUpdateDeduplication: Equatable, Sendable {
    /// What to do with the update.
    enum Decision: Equatable, Sendable {
        /// Run the handlers.
        case handle
        /// Run nothing: the update was handled already.
        case skip
        /// Ask the service for the message's current state, then decide with ``decision(givenCurrent:)``.
        case askService
    }

    /// The message as the service says it is now.
    enum CurrentState: Equatable, Sendable {
        /// The service returned the message in this state.
        case known(MessageUpdateFingerprint)
        /// The request failed, or the service did not return the message.
        case unknown
    }

    /// The update arriving.
    let update: MessageUpdateFingerprint
    /// The updates of its message handled before it.
    let handled: HandledMessageUpdates

    /// The decision from what the bot knows alone.
    var decision: Decision {
        if handled.lastDigest == update.digest { return .skip }
        return handled.contains(update) ? .askService : .handle
    }

    /// The decision once the service said what the message is now (for an update ``decision`` sends there):
    /// handled when the message is in the update's state, or when that is unknown; skipped otherwise.
    func decision(givenCurrent current: CurrentState) -> Decision {
        guard decision == .askService else { return decision }
        switch current {
        case .known(let state): return state == update ? .handle : .skip
        case .unknown: return .handle
        }
    }
}
