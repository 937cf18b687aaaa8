/// The turn of the event loop the caller runs on: one round of its events, timers and jobs, before it waits again.
package enum EventLoopTurn {
    /// Runs `work` on the caller's event loop once this turn's events, timers and jobs are done, and returns true;
    /// returns false, running nothing, when the caller runs on no event loop. For work worth doing once per turn
    /// rather than once per event: what the turn's events decided, sent together.
    package static func atEnd(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard let loop = EventLoop.current else { return false }
        loop.atEndOfTurn(work)
        return true
    }
}
