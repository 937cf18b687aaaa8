import Synchronization

/// The outcome of one handler call, decided once: the handler returned in time (`complete`), or the dispatcher's
/// watchdog gave up on it (`abandon`). Whoever comes first wins; the loser learns it and backs off, so a handler
/// that returns just as it times out is either committed or discarded, never both.
final class HandlerRun: Sendable {
    private enum Phase { case running, completed, abandoned(atTimeout: Bool) }

    private let phase = Mutex(Phase.running)
    private let context = Mutex<ObjectIdentifier?>(nil)
    /// Run once when the run completes or is abandoned, whichever comes first.
    private let endActions = Mutex<[@Sendable () -> Void]>([])
    /// The rewind epoch of the conversation when the work was taken (``HandlerDispatcher/rewind(_:ifEpoch:)``): a
    /// refusal of a unit from an older epoch is expected, since the conversation was already rewound past it.
    let epoch: UInt64

    init(epoch: UInt64 = 0) {
        self.epoch = epoch
    }

    /// The context the handler runs with, so that what it left behind (a typing indicator) can be cleared when
    /// it is abandoned.
    var contextID: ObjectIdentifier? {
        get { context.withLock { $0 } }
        set { context.withLock { $0 = newValue } }
    }

    /// Marks the run completed; false when it was abandoned (its work must be discarded).
    func complete() -> Bool {
        let completed = phase.withLock { phase in
            guard case .running = phase else { return false }
            phase = .completed
            return true
        }
        if completed { runEndActions() }
        return completed
    }

    /// Marks the run abandoned, `atTimeout` when its handler timeout gave up on it (rather than a stop of the
    /// session); false when it had already completed.
    func abandon(atTimeout: Bool = false) -> Bool {
        let abandoned = phase.withLock { phase in
            guard case .running = phase else { return false }
            phase = .abandoned(atTimeout: atTimeout)
            return true
        }
        if abandoned { runEndActions() }
        return abandoned
    }

    /// Runs `action` when the run completes or is abandoned (at once if it already has).
    func onEnd(_ action: @escaping @Sendable () -> Void) {
        let ended = phase.withLock { phase -> Bool in
            guard case .running = phase else { return true }
            endActions.withLock { $0.append(action) }
            return false
        }
        if ended { action() }
    }

    private func runEndActions() {
        for action in endActions.withLock({ actions in defer { actions = [] }; return actions }) { action() }
    }

    /// Whether the watchdog gave up on the run: its context refuses further work.
    var isAbandoned: Bool {
        phase.withLock { if case .abandoned = $0 { true } else { false } }
    }

    /// Whether the handler timeout gave up on the run: its code ran that long without the process dying.
    var timedOut: Bool {
        phase.withLock { if case .abandoned(atTimeout: true) = $0 { true } else { false } }
    }
}
