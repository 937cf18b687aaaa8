import WebSocket

/// Where a bot session's tasks run: its frame reader, admission, handlers, outbox, receipts and timers.
public enum SessionExecution: Sendable, Equatable {
    /// All on one of the realtime socket's event loops (`BotRuntimeEnvironment.webSocket`'s group; the shared
    /// group has a thread per core), the socket included: a message goes from the socket through its admission,
    /// its handler and the outbox, and its reply back out, on one thread, with no other thread woken on the way.
    /// The default. A handler that computes or blocks for long stretches then holds up the other bots of its loop,
    /// and their timers (heartbeats, handler timeouts) wait for it: give such work a `Task.detached` of its own,
    /// or choose `.globalConcurrentExecutor`.
    case eventLoop
    /// On Swift's global concurrent executor, as any unstructured task; the socket's loop resumes the session's
    /// tasks there.
    case globalConcurrentExecutor
}

/// The executor the tasks of the session running now prefer, for the unstructured tasks a session starts (which
/// do not inherit a preference): `Task(executorPreference: SessionExecutor.preferred) { ... }`.
enum SessionExecutor {
    /// nil outside a session, or with `SessionExecution.globalConcurrentExecutor`.
    @TaskLocal static var preferred: (any TaskExecutor)?

    /// The executor a new session of `environment` prefers; nil when the event loops cannot start (the session
    /// then runs on the global executor, and its connect reports the loops' failure).
    static func forNewSession(of environment: BotRuntimeEnvironment) -> (any TaskExecutor)? {
        switch environment.sessionExecution {
        case .eventLoop: try? environment.webSocket.eventLoopGroup.nextTaskExecutor()
        case .globalConcurrentExecutor: nil
        }
    }
}
