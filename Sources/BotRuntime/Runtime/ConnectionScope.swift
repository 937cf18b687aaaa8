import ChatterBots

/// The tasks of one open realtime connection, as one task group that ends with the connection: the frame reader,
/// the sender of the frames nobody awaits a reply to (typing), and the per-connection work its owner adds (a bot's
/// synchronization). When the reader returns (the connection ended), everything else of the connection is cancelled
/// and awaited and its heartbeat stopped, so no task of a connection outlives it, and the next connection starts
/// with none of the last one's.
///
/// The owner decides, once the connection is open, whether it takes it: `ConnectionTasks.startReading(_:)` or
/// `ConnectionTasks.end()` (the connection is then aborted). Bot sessions and the terminal client both run their
/// connections in one.
///
/// ```swift
/// await ConnectionScope.run(connection, heartbeat: driver, onDead: { … }) { tasks in
///     tasks.startReading { for await event in connection.events { … } }
/// }
/// let reason = await connection.closeReason
/// ```
package enum ConnectionScope {
    /// Runs the tasks of `connection` until its reader returned, or until `opened`'s handle was ended without one,
    /// or the calling task is cancelled. The heartbeat starts at once; `opened` gets the handle, before anything is
    /// read; `onDead` runs when the heartbeat gave the connection up (the owner then drops it, which ends the reader).
    package static func run(
        _ connection: ChatterRealtimeConnection, heartbeat: HeartbeatDriver,
        onDead: @escaping @Sendable () -> Void, opened: (ConnectionTasks) async -> Void
    ) async {
        let (work, continuation) = AsyncStream.makeStream(of: ConnectionTasks.Work.self)
        let (frames, frameSink) = AsyncStream.makeStream(of: ClientRequest.self)
        let tasks = ConnectionTasks(continuation, frames: frameSink)
        heartbeat.start(connection, interval: connection.heartbeatInterval, onDead: onDead)
        let didRead = await withDiscardingTaskGroup { group -> Bool in
            await opened(tasks)
            var didRead = false
            var sending = false
            // Ends when the reader finished the stream, when the owner ended it, or when this task is cancelled.
            loop: for await item in work {
                switch item {
                case .reader(let read):
                    guard !didRead else { continue }
                    didRead = true
                    group.addTask {
                        await read()
                        continuation.finish()
                    }
                case .child(let body):
                    group.addTask(operation: body)
                case .sender:
                    // One sender, so such frames go out in the order they were asked for, one hop after the ask;
                    // started by the first frame: most connections send none, and an idle task costs a bot memory.
                    guard !sending else { continue }
                    sending = true
                    group.addTask {
                        for await frame in frames {
                            // Closed: the reader reports the end; the frames still queued fail as fast.
                            try? await connection.send(frame)
                        }
                    }
                case .end:
                    if !didRead { break loop }
                }
            }
            group.cancelAll()
            return didRead
        }
        heartbeat.stop()
        // A connection nobody read (given up, or its owner went away) is dropped rather than left open.
        if !didRead { connection.abort() }
    }
}

/// The handle of a running `ConnectionScope`: what its owner adds to the connection's task group.
package struct ConnectionTasks: Sendable {
    enum Work: Sendable {
        case reader(@Sendable () async -> Void)
        case child(@Sendable () async -> Void)
        /// A frame waits for the sender.
        case sender
        case end
    }

    private let work: AsyncStream<Work>.Continuation
    private let frames: AsyncStream<ClientRequest>.Continuation

    init(_ work: AsyncStream<Work>.Continuation, frames: AsyncStream<ClientRequest>.Continuation) {
        self.work = work
        self.frames = frames
    }

    /// Sends `request`, a frame the server does not answer, on the connection's sender; dropped once the
    /// connection ended.
    package func send(_ request: ClientRequest) {
        frames.yield(request)
        work.yield(.sender)
    }

    /// Reads the connection with `read`, which returns once the connection has ended; the scope ends with it.
    /// Only the first reader counts.
    package func startReading(_ read: @escaping @Sendable () async -> Void) {
        work.yield(.reader(read))
    }

    /// Runs `body` in the connection's group; it is cancelled when the connection ends.
    package func add(_ body: @escaping @Sendable () async -> Void) {
        work.yield(.child(body))
    }

    /// Ends a scope whose connection the owner did not take: the connection is aborted and nothing is read.
    /// Does nothing once a reader started (the connection's end then ends the scope).
    package func end() {
        work.yield(.end)
    }
}
