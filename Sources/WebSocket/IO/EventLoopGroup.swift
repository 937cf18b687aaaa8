import Glibc
import Synchronization

/// A fixed set of epoll event-loop threads that share the sockets of clients and servers.
///
/// One group with a thread per core (`shared`) serves a whole process: a connection costs a registration and a
/// few small buffers, never a thread, so thousands of idle connections are cheap.
public final class EventLoopGroup: Sendable {
    /// The process-wide group, with one loop per available core. Its threads start on first use (the first
    /// connect or listen); when the system refuses them (no file descriptor left) that call throws
    /// `EventLoopStartError` and the next call tries again. Never shut down.
    public static let shared = EventLoopGroup(startingOnFirstUse: EventLoopGroup.coreCount)

    /// The number of online processors, at least 1.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Creates one loop; `EventLoop.init` except in tests, which inject failures.
    typealias LoopFactory = @Sendable (_ name: String) throws(IOError) -> EventLoop

    private enum State {
        case notStarted
        case running([EventLoop])
        case shutDown
    }

    private let threadCount: Int
    private let makeLoop: LoopFactory
    private let state: Mutex<State>
    private let nextIndex = Atomic<Int>(0)

    /// Starts `threadCount` event-loop threads now.
    /// - Throws: `WebSocketError.eventLoopUnavailable` when the system refuses epoll or eventfd descriptors.
    public init(threadCount: Int = EventLoopGroup.coreCount) throws(WebSocketError) {
        self.threadCount = max(1, threadCount)
        self.makeLoop = { name throws(IOError) in try EventLoop(name: name) }
        self.state = Mutex(.notStarted)
        try start()
    }

    /// A group whose `threadCount` loops start on the first `next()` or `start()`, made by `makeLoop`.
    init(startingOnFirstUse threadCount: Int, makeLoop: @escaping LoopFactory = { name throws(IOError) in try EventLoop(name: name) }) {
        self.threadCount = max(1, threadCount)
        self.makeLoop = makeLoop
        self.state = Mutex(.notStarted)
    }

    /// Starts the loops unless they run already. A process that will later use up its descriptors (thousands
    /// of stores, say) calls this first, so that a refusal shows at start-up rather than at its first socket.
    /// - Throws: `WebSocketError.eventLoopUnavailable` (no loop is left running then: the next call tries again),
    ///   `.eventLoopGroupShutDown` after `shutdown()`.
    public func start() throws(WebSocketError) {
        _ = try runningLoops()
    }

    /// The loop for the next socket: the one the current task prefers as its executor when it is one of this
    /// group's (so the socket's reads resume that task on its own thread), else the next one round-robin.
    /// Starts the loops first if needed.
    /// - Throws: as `start()`.
    func next() throws(WebSocketError) -> EventLoop {
        let loops = try runningLoops()
        if let preferred = withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor }),
            let loop = loops.first(where: { $0.asUnownedTaskExecutor() == preferred })
        {
            return loop
        }
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// One of the group's loops as a task executor, round-robin, starting the loops first if needed.
    ///
    /// A task created with it as its preference (`Task(executorPreference:)`) runs on that loop's thread, together
    /// with the sockets it connects from there: a frame read resumes the task awaiting it with no other thread
    /// involved. Such a task must not block: it holds up every socket and timer of its loop while it runs. After
    /// `shutdown()` (never call it from such a task) the task goes on on the global concurrent executor.
    /// - Throws: as `start()`.
    public func nextTaskExecutor() throws(WebSocketError) -> any TaskExecutor {
        let loops = try runningLoops()
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    private func runningLoops() throws(WebSocketError) -> [EventLoop] {
        let result: Result<[EventLoop], WebSocketError> = state.withLock { state in
            switch state {
            case .running(let loops):
                return .success(loops)
            case .shutDown:
                return .failure(.eventLoopGroupShutDown)
            case .notStarted:
                var loops: [EventLoop] = []
                for index in 0..<threadCount {
                    do throws(IOError) {
                        loops.append(try makeLoop("chatter-loop-\(index)"))
                    } catch {
                        for loop in loops { loop.stop() }
                        return .failure(.eventLoopUnavailable(EventLoopStartError(error)))
                    }
                }
                state = .running(loops)
                return .success(loops)
            }
        }
        return try result.get()
    }

    /// Stops the threads. Close every server and connection of the group first: sockets left open are not closed.
    /// Later connects and listens on the group throw `WebSocketError.eventLoopGroupShutDown`.
    public func shutdown() {
        let loops = state.withLock { state -> [EventLoop] in
            defer { state = .shutDown }
            if case .running(let loops) = state { return loops }
            return []
        }
        for loop in loops { loop.stop() }
    }
}
