import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process-wide cap on how many ``DatabaseQueue``s (those whose ``DatabaseDormancy`` names this budget) hold
/// an open connection at once, so that thousands of databases never run the process out of file descriptors.
///
/// A queue asks for a slot before it opens its connection. When every slot is taken, the budget closes the
/// connection of the least recently used queue that is idle (nothing queued on it, no transaction open) and
/// gives its slot to the asking queue; when every holder is busy, the asking queue waits (asynchronously,
/// blocking no thread) until one finishes its work or releases its connection. An evicted queue reopens its
/// connection, through the budget again, on its next use.
///
/// ```swift
/// let budget = ConnectionBudget(limit: 4_000)
/// let dormancy = DatabaseDormancy(idleTimeout: .seconds(30), budget: budget)
/// let queue = try await DatabaseQueue(path: path, dormancy: dormancy)
/// ```
public final class ConnectionBudget: Sendable {
    /// The most connections open at once.
    public let limit: Int
    private let state: Mutex<State>
    /// Whether queues are waiting for a slot: read without the lock by every call that finishes its work.
    private let hasWaiters = Atomic<Bool>(false)

    /// A queue waiting for a slot, with every call of it that waits (a queue waits once, however many calls).
    private struct Waiter {
        let queue: DatabaseQueue
        var continuations: [CheckedContinuation<DatabaseQueue?, Never>] = []

        /// Lets the calls go on; the first closes `victim`'s connection before running.
        func resume(closing victim: DatabaseQueue?) {
            for (index, continuation) in continuations.enumerated() {
                continuation.resume(returning: index == 0 ? victim : nil)
            }
        }
    }

    /// The holders in order of last use, least recent first: a doubly linked list over an array of nodes.
    private struct Recency {
        struct Node {
            weak var queue: DatabaseQueue?
            var previous = -1
            var next = -1
        }

        var nodes: [Node] = []
        var freeNodes: [Int] = []
        var nodeOf: [ObjectIdentifier: Int] = [:]
        var head = -1
        var tail = -1

        var count: Int { nodeOf.count }

        func contains(_ id: ObjectIdentifier) -> Bool { nodeOf[id] != nil }

        mutating func append(_ queue: DatabaseQueue) {
            let id = ObjectIdentifier(queue)
            if nodeOf[id] != nil {
                moveToTail(id)
                return
            }
            let node = Node(queue: queue, previous: tail, next: -1)
            let index: Int
            if let free = freeNodes.popLast() {
                nodes[free] = node
                index = free
            } else {
                nodes.append(node)
                index = nodes.count - 1
            }
            if tail >= 0 { nodes[tail].next = index } else { head = index }
            tail = index
            nodeOf[id] = index
        }

        mutating func remove(_ id: ObjectIdentifier) {
            guard let index = nodeOf.removeValue(forKey: id) else { return }
            unlink(index)
            nodes[index] = Node()
            freeNodes.append(index)
        }

        mutating func moveToTail(_ id: ObjectIdentifier) {
            guard let index = nodeOf[id], index != tail else { return }
            unlink(index)
            nodes[index].previous = tail
            nodes[index].next = -1
            if tail >= 0 { nodes[tail].next = index } else { head = index }
            tail = index
        }

        private mutating func unlink(_ index: Int) {
            let (previous, next) = (nodes[index].previous, nodes[index].next)
            if previous >= 0 { nodes[previous].next = next } else { head = next }
            if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        }
    }

    /// A queue waiting for a slot, held weakly: the list keeps entries until it is compacted, and releasing a
    /// queue's last reference there would run its deinit (which calls `forget`) under the budget's lock.
    private struct WaitingQueue {
        weak var queue: DatabaseQueue?
    }

    private struct State {
        var holders = Recency()
        var waiters: [WaitingQueue] = []
        var waitingCalls: [ObjectIdentifier: [CheckedContinuation<DatabaseQueue?, Never>]] = [:]
        var firstWaiter = 0
        var evictions = 0

        var waiterCount: Int { waiters.count - firstWaiter }

        /// The first waiting queue still alive; entries of queues gone meanwhile are dropped on the way.
        mutating func firstWaiting() -> DatabaseQueue? {
            while firstWaiter < waiters.count {
                if let queue = waiters[firstWaiter].queue { return queue }
                advance()
            }
            return nil
        }

        mutating func popWaiter() -> Waiter? {
            guard let queue = firstWaiting() else { return nil }
            advance()
            return Waiter(queue: queue, continuations: waitingCalls.removeValue(forKey: ObjectIdentifier(queue)) ?? [])
        }

        private mutating func advance() {
            firstWaiter += 1
            if firstWaiter == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                firstWaiter = 0
            } else if firstWaiter >= 1024 && firstWaiter * 2 >= waiters.count {
                waiters.removeFirst(firstWaiter)
                firstWaiter = 0
            }
        }
    }

    /// A budget of `limit` open connections (at least one).
    public init(limit: Int) {
        self.limit = max(1, limit)
        self.state = Mutex(State())
    }

    /// A budget that fits in the process's open-file limit (`RLIMIT_NOFILE`, soft): what is left after
    /// `reservedDescriptors` (sockets, logs, listeners), divided by the descriptors one connection holds in WAL
    /// mode: 3 (the file, its log, and with ``LockingMode/exclusive`` on Linux the lock's own descriptor, or with
    /// ``LockingMode/normal`` the shared-memory index).
    public static func fittingOpenFileLimit(reservedDescriptors: Int, descriptorsPerConnection: Int = 3) -> ConnectionBudget {
        var limits = rlimit()
        let available: Int
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max {
            available = Int(clamping: limits.rlim_cur) - reservedDescriptors
        } else {
            available = 1 << 20
        }
        return ConnectionBudget(limit: available / max(1, descriptorsPerConnection))
    }

    /// How many queues hold a slot now.
    public var openCount: Int {
        state.withLock { $0.holders.count }
    }

    /// How many connections were closed to make room for another queue's.
    public var evictionCount: Int {
        state.withLock { $0.evictions }
    }

    /// How many queues wait for a slot now (one released while it waited may still count).
    var waitingCount: Int {
        state.withLock { $0.waiterCount }
    }

    // MARK: - Used by DatabaseQueue

    /// Returns once `queue` holds a slot, after closing the connection of the queue it was taken from, if any.
    func acquire(for queue: DatabaseQueue) async {
        let victim: DatabaseQueue? = await withCheckedContinuation { continuation in
            enum Outcome { case granted(DatabaseQueue?), waiting }
            let outcome = state.withLock { state -> Outcome in
                if queue.activity.withLock({ $0.mayBeOpen }) { return .granted(nil) }
                let id = ObjectIdentifier(queue)
                if state.waitingCalls[id] != nil {
                    state.waitingCalls[id, default: []].append(continuation)
                    return .waiting
                }
                if state.holders.count < limit {
                    grant(queue, in: &state)
                    return .granted(nil)
                }
                if let victim = takeLeastRecentlyUsedIdleSlot(in: &state) {
                    grant(queue, in: &state)
                    return .granted(victim)
                }
                state.waiters.append(WaitingQueue(queue: queue))
                state.waitingCalls[id] = [continuation]
                hasWaiters.store(true, ordering: .releasing)
                return .waiting
            }
            if case .granted(let victim) = outcome {
                continuation.resume(returning: victim)
            }
        }
        if let victim {
            await victim.closeEvictedConnection()
        }
    }

    /// Gives up `queue`'s slot if `decide` (run under the queue's lock) says so; hands it to a waiting queue.
    func release(_ queue: DatabaseQueue, _ decide: (inout DatabaseQueue.Activity) -> Bool) -> Bool {
        let (released, granted) = state.withLock { state -> (Bool, [Waiter]) in
            let released = queue.activity.withLock { activity in decide(&activity) }
            guard released else { return (false, []) }
            state.holders.remove(ObjectIdentifier(queue))
            return (true, grantFreeSlots(in: &state))
        }
        for waiter in granted { waiter.resume(closing: nil) }
        return released
    }

    /// Gives up `queue`'s slot for good (the queue was closed).
    func relinquish(_ queue: DatabaseQueue) {
        _ = release(queue) { activity in
            let held = activity.mayBeOpen
            activity.mayBeOpen = false
            return held
        }
    }

    /// Forgets a queue that is going away.
    func forget(_ id: ObjectIdentifier) {
        let granted = state.withLock { state -> [Waiter] in
            guard state.holders.contains(id) else { return [] }
            state.holders.remove(id)
            return grantFreeSlots(in: &state)
        }
        for waiter in granted { waiter.resume(closing: nil) }
    }

    /// `queue` has no work left: it becomes the most recently used holder; when other queues wait for a slot, the
    /// least recently used idle holder's slot goes to the first of them.
    func workFinished(_ queue: DatabaseQueue) {
        let (ready, handOver) = state.withLock { state -> ([Waiter], (Waiter, DatabaseQueue)?) in
            state.holders.moveToTail(ObjectIdentifier(queue))
            guard state.waiterCount > 0 else { return ([], nil) }
            var ready = grantFreeSlots(in: &state)
            guard state.waiterCount > 0, let victim = takeLeastRecentlyUsedIdleSlot(in: &state),
                let waiter = state.popWaiter()
            else { return (ready, nil) }
            grant(waiter.queue, in: &state)
            ready += popWaitersHoldingSlots(in: &state)
            if state.waiterCount == 0 { hasWaiters.store(false, ordering: .releasing) }
            return (ready, (waiter, victim))
        }
        for waiter in ready { waiter.resume(closing: nil) }
        if let (waiter, victim) = handOver { waiter.resume(closing: victim) }
    }

    // MARK: - Internals (under the lock)

    private func grant(_ queue: DatabaseQueue, in state: inout State) {
        state.holders.append(queue)
        queue.activity.withLock { $0.mayBeOpen = true }
    }

    /// Removes the first waiters whose queue got a slot meanwhile (a queue with several calls waiting asks once
    /// per call): they go on without taking another slot.
    private func popWaitersHoldingSlots(in state: inout State) -> [Waiter] {
        var ready: [Waiter] = []
        while let queue = state.firstWaiting(), queue.activity.withLock({ $0.mayBeOpen }),
            let waiter = state.popWaiter()
        {
            ready.append(waiter)
        }
        return ready
    }

    /// Grants slots left free to waiting queues, in the order they asked.
    private func grantFreeSlots(in state: inout State) -> [Waiter] {
        var granted = popWaitersHoldingSlots(in: &state)
        while state.holders.count < limit, let waiter = state.popWaiter() {
            grant(waiter.queue, in: &state)
            granted.append(waiter)
            granted += popWaitersHoldingSlots(in: &state)
        }
        if state.waiterCount == 0 { hasWaiters.store(false, ordering: .releasing) }
        return granted
    }

    /// Takes the slot of the least recently used holder that is idle (nothing queued, no transaction open), or
    /// returns nil when all are busy.
    private func takeLeastRecentlyUsedIdleSlot(in state: inout State) -> DatabaseQueue? {
        var index = state.holders.head
        while index >= 0 {
            let node = state.holders.nodes[index]
            index = node.next
            guard let queue = node.queue else { continue }
            let taken = queue.activity.withLock { activity -> Bool in
                guard activity.pendingWork == 0, !activity.inTransaction else { return false }
                activity.mayBeOpen = false
                activity.releases += 1
                return true
            }
            if taken {
                state.holders.remove(ObjectIdentifier(queue))
                state.evictions += 1
                return queue
            }
        }
        return nil
    }
}
