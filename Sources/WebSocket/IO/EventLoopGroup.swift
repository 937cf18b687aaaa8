import Glibc
import Synchronization

/// A fixed set of epoll event-loop threads that share the sockets of clients and servers.
///
/// One group with a thread per core (`shared`) serves a whole process: a connection costs a registration and a
/// few small buffers, never a thread, so thousands of idle connections are cheap.
public final class EventLoopGroup: Sendable {
    /// The process-wide group, with one loop per available core; created on first use, never shut down.
    public static let shared: EventLoopGroup = {
        do {
            return try EventLoopGroup(threadCount: EventLoopGroup.coreCount)
        } catch {
            fatalError("cannot start the shared event loops: \(error)")
        }
    }()

    /// The number of online processors, at least 1.
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    /// Starts `threadCount` event-loop threads.
    /// - Throws: `WebSocketError.connectionFailed` when the system refuses epoll or eventfd descriptors.
    public init(threadCount: Int = EventLoopGroup.coreCount) throws(WebSocketError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, threadCount) {
            do {
                loops.append(try EventLoop(name: "chatterbots.eventloop.\(index)"))
            } catch {
                for loop in loops { loop.stop() }
                throw WebSocketError(ioError: error)
            }
        }
        self.loops = loops
    }

    /// The loop for the next socket, round-robin.
    func next() -> EventLoop {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[index % loops.count]
    }

    /// Stops the threads. Close every server and connection of the group first: sockets left open are not closed.
    public func shutdown() {
        for loop in loops { loop.stop() }
    }
}
