import CLinuxIO
import Foundation
import Glibc
import Synchronization

/// Readiness callbacks for a file descriptor registered with an `EventLoop`; always called on the loop's thread.
protocol EventLoopSelectable: AnyObject, Sendable {
    /// The descriptor has bytes to read, an end of stream or an error to collect (EPOLLIN, EPOLLRDHUP, EPOLLHUP, EPOLLERR).
    func selectableReadable()
    /// The descriptor accepts writes again (EPOLLOUT).
    func selectableWritable()
}

/// epoll event bits; Swift does not import the EPOLL* macros as usable constants.
enum EpollEvents {
    static let input: UInt32 = 0x001
    static let output: UInt32 = 0x004
    static let error: UInt32 = 0x008
    static let hangup: UInt32 = 0x010
    static let readHangup: UInt32 = 0x2000
}

/// One thread that waits on epoll for socket readiness, runs closures submitted from any thread, and fires timers.
///
/// Every socket belongs to exactly one loop; its reads, its registration changes and its close happen on that
/// loop's thread, so a connection needs no thread of its own. The loop is also a `TaskExecutor`: a task that
/// prefers it runs its jobs on the loop's thread between polls, so a frame read there resumes the task that
/// awaits it with no thread woken and no switch.
final class EventLoop: TaskExecutor, Sendable {
    /// Size of the buffer each read(2) fills; shared by all the loop's sockets because reads are consumed synchronously.
    static let readBufferSize = 64 * 1024

    private let epollFD: Int32
    private let wakeFD: Int32
    private let queue = Mutex(TaskQueue())
    private let registry = Mutex(Registry())
    private let timers = Mutex(TimerHeap())
    /// Work to run once the turn's events, timers and jobs are done, before the loop waits again (see `atEndOfTurn`).
    private let endOfTurn = Mutex(EndOfTurnWork())
    private let threadID = Atomic<UInt>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Safe without a lock: only `withReadBuffer` touches the bytes, and it asserts it runs on the loop thread,
    /// which is the only thread that reads sockets; the pointer itself never changes after init.
    nonisolated(unsafe) private let readBuffer: UnsafeMutableRawBufferPointer

    private static let wakeToken: UInt64 = 0

    private struct TaskQueue {
        var tasks: [@Sendable () -> Void] = []
        var jobs: [UnownedJob] = []
        var wakePending = false
        /// Set once the thread has finished: the wake descriptor is closed, closures are dropped, and jobs go to
        /// the global concurrent executor (a task that prefers a stopped loop still runs, elsewhere).
        var isClosed = false

        var isEmpty: Bool { tasks.isEmpty && jobs.isEmpty }

        /// Whether the caller must wake the loop: true for the first submission since the loop last took its queue.
        mutating func claimWake() -> Bool {
            if wakePending { return false }
            wakePending = true
            return true
        }
    }

    /// How many rounds of jobs one turn runs before polling again: jobs a round enqueues (one task resuming
    /// another) run in the next round without a system call, and a busy producer still cannot starve sockets.
    private static let jobRoundsPerTurn = 16

    private struct Registry {
        var nextID: UInt64 = 1
        var selectables: [UInt64: any EventLoopSelectable] = [:]
    }

    init(name: String) throws(IOError) {
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw IOError(operation: "epoll_create1", errno: errno) }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let code = errno
            Glibc.close(epollFD)
            throw IOError(operation: "eventfd", errno: code)
        }
        var event = epoll_event()
        event.events = EpollEvents.input
        event.data.u64 = Self.wakeToken
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let code = errno
            Glibc.close(wakeFD)
            Glibc.close(epollFD)
            throw IOError(operation: "epoll_ctl", errno: code)
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.readBuffer = .allocate(byteCount: Self.readBufferSize, alignment: 16)
        let thread = Thread { [self] in
            // The system's name of the thread (15 bytes at most), as `ps`, `perf` and `Thread.current.name` show it:
            // without it the thread keeps the name of the dispatch thread that created it.
            _ = pthread_setname_np(pthread_self(), String(name.utf8.prefix(15)) ?? "chatter-loop")
            // Handlers run on this thread: a handler recursing without end still gets its crash report.
            let signalStack = AlternateSignalStack()
            self.run()
            _ = consume signalStack
        }
        thread.name = name
        // Tasks that prefer the loop run their synchronous code (decoding, SQLite, bot handlers) on this stack.
        thread.stackSize = 8 << 20
        thread.start()
    }

    deinit {
        readBuffer.deallocate()
    }

    /// The loop whose thread runs the caller; nil off every loop's thread.
    static var current: EventLoop? {
        guard let pointer = pthread_getspecific(currentLoopKey) else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether the caller runs on this loop's thread.
    var inEventLoop: Bool {
        threadID.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
    }

    /// Runs `task` on the loop thread, after the events being handled now; dropped once the loop has stopped.
    func execute(_ task: @escaping @Sendable () -> Void) {
        let onLoop = inEventLoop
        queue.withLock { queue in
            guard !queue.isClosed else { return }
            queue.tasks.append(task)
            if queue.claimWake() && !onLoop { wake() }
        }
    }

    /// Runs a job of a task that prefers this loop (or of a default actor such a task calls) on the loop thread;
    /// on the global concurrent executor once the loop has stopped.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let onLoop = inEventLoop
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.isClosed else { return false }
            queue.jobs.append(job)
            if queue.claimWake() && !onLoop { wake() }
            return true
        }
        if !accepted { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Wakes the thread from `epoll_wait`. Called with `queue` locked, so that it never writes to the descriptor
    /// after the finished thread closed it (its number may belong to another file by then).
    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Runs `work` on the loop thread once `delay` has passed, unless the returned timer is cancelled first. With
    /// `firesOnStop`, the work also runs when the loop stops first (at once, on the caller's thread, if it has
    /// stopped already): for a sleeper, which must not wait on a loop that will never wake it.
    @discardableResult
    func scheduleTimer(in delay: Duration, firesOnStop: Bool = false, _ work: @escaping @Sendable () -> Void) -> EventLoopTimer {
        let timer = EventLoopTimer(deadline: MonotonicTime.now() + delay.nanoseconds, firesOnStop: firesOnStop, work: work)
        let becameEarliest = timers.withLock { heap -> Bool in
            heap.insert(timer)
            return heap.earliest === timer
        }
        // The loop's exit fires the timers it finds; one inserted after that fires here (a timer runs at most once).
        if firesOnStop && queue.withLock({ $0.isClosed }) {
            timer.fire()
            return timer
        }
        // epoll_wait must recompute its timeout when the new timer fires before the one it sleeps for.
        if becameEarliest && !inEventLoop { execute {} }
        return timer
    }

    /// Runs `work` on the loop thread once `delay` has passed, or when the loop stops first (its exit runs the timers
    /// it holds); nil, with nothing scheduled, once the loop has closed. Unlike `scheduleTimer`, it never runs `work`
    /// on the caller's stack: the timer is inserted under the queue's lock, which the loop's exit closes before it
    /// takes the timers, so the exit finds every timer inserted before the close.
    func scheduleTimerIfOpen(in delay: Duration, _ work: @escaping @Sendable () -> Void) -> EventLoopTimer? {
        let timer = EventLoopTimer(deadline: MonotonicTime.now() + delay.nanoseconds, firesOnStop: true, work: work)
        let becameEarliest = queue.withLock { queue -> Bool? in
            guard !queue.isClosed else { return nil }
            return timers.withLock { heap in
                heap.insert(timer)
                return heap.earliest === timer
            }
        }
        guard let becameEarliest else { return nil }
        if becameEarliest && !inEventLoop { execute {} }
        return timer
    }

    /// How many timers the loop holds, cancelled ones not yet dropped included.
    var timerCount: Int { timers.withLock { $0.count } }

    /// How many of the loop's timers are still to run (not cancelled, not run).
    var liveTimerCount: Int { timers.withLock { $0.liveCount } }

    /// The deadline the loop's next `epoll_wait` sleeps until at the latest, if a timer still to run sets one.
    var nextTimerDeadline: UInt64? { timers.withLock { $0.earliestLiveDeadline() } }

    /// Registers `selectable` for `events`; returns the token that identifies it in epoll.
    func register(fd: Int32, events: UInt32, _ selectable: any EventLoopSelectable) throws(IOError) -> UInt64 {
        let token = registry.withLock { registry -> UInt64 in
            let token = registry.nextID
            registry.nextID += 1
            registry.selectables[token] = selectable
            return token
        }
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            let code = errno
            registry.withLock { _ = $0.selectables.removeValue(forKey: token) }
            throw IOError(operation: "epoll_ctl(ADD)", errno: code)
        }
        return token
    }

    /// Changes the events a registered descriptor is watched for; callable from any thread.
    func reregister(fd: Int32, token: UInt64, events: UInt32) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = token
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd`; events already collected for it are dropped.
    func deregister(fd: Int32, token: UInt64) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        _ = registry.withLock { $0.selectables.removeValue(forKey: token) }
    }

    /// Gives `body` the loop's read buffer; only valid on the loop thread, and only for the duration of `body`.
    func withReadBuffer<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        assert(inEventLoop)
        return try body(readBuffer)
    }

    /// Runs `work` on the loop thread once this turn's events, timers and jobs are done, before the loop waits for
    /// events again: for a socket to send in one system call what the turn wrote to it. Must be called on the loop
    /// thread.
    func atEndOfTurn(_ work: @escaping @Sendable () -> Void) {
        assert(inEventLoop)
        endOfTurn.withLock { $0.pending.append(work) }
    }

    /// The work to run at the end of the turn, and an emptied array that keeps its capacity for the next turn.
    private struct EndOfTurnWork {
        var pending: [@Sendable () -> Void] = []
        var spare: [@Sendable () -> Void] = []

        /// The pending work; the spare array (emptied, its capacity kept) takes its place.
        mutating func take() -> [@Sendable () -> Void] {
            guard !pending.isEmpty else { return [] }
            var work = spare
            spare = []
            swap(&work, &pending)
            return work
        }
    }

    /// Runs the end-of-turn work, including work it adds.
    private func finishTurn() {
        while true {
            var work = endOfTurn.withLock { $0.take() }
            if work.isEmpty { return }
            for item in work { item() }
            work.removeAll(keepingCapacity: true)
            endOfTurn.withLock { $0.spare = work }
        }
    }

    /// Whether `stop()` was called.
    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// Asks the thread to finish and, unless called from it, waits until it has; sockets still registered are not
    /// closed. Jobs of tasks that prefer the loop run on the global concurrent executor from then on.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if inEventLoop { return }
        queue.withLock { queue in
            if !queue.isClosed { wake() }
        }
        finished.wait()
    }

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .releasing)
        // The thread's closure holds the loop for as long as the thread runs, so the pointer stays valid.
        pthread_setspecific(currentLoopKey, Unmanaged.passUnretained(self).toOpaque())
        let capacity = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
        defer {
            events.deallocate()
            finishTurn()
            // Closures left for the loop's sockets are dropped (released outside the lock: what they capture may
            // submit more on its way out); jobs left go to the global executor.
            let (dropped, jobs) = queue.withLock { queue in
                queue.isClosed = true
                Glibc.close(wakeFD)
                Glibc.close(epollFD)
                defer { (queue.tasks, queue.jobs) = ([], []) }
                return (queue.tasks, queue.jobs)
            }
            withExtendedLifetime(dropped) {}
            for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
            // Sleepers on this loop's timers end now, and go on sleeping elsewhere; other timers are dropped.
            for timer in timers.withLock({ $0.removeAll() }) where timer.firesOnStop { timer.fire() }
            finished.signal()
        }
        while !stopped.load(ordering: .acquiring) {
            let count = epoll_wait(epollFD, events, Int32(capacity), waitTimeout())
            if count < 0 && errno != EINTR { break }
            for index in 0..<max(0, Int(count)) {
                let event = events[index]
                let token = event.data.u64
                if token == Self.wakeToken {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                    continue
                }
                guard let selectable = registry.withLock({ $0.selectables[token] }) else { continue }
                if event.events & (EpollEvents.output) != 0 {
                    selectable.selectableWritable()
                }
                let readMask = EpollEvents.input | EpollEvents.readHangup | EpollEvents.hangup | EpollEvents.error
                if event.events & readMask != 0 {
                    selectable.selectableReadable()
                }
            }
            runTasks()
            // Timers after the work the turn's input started: a reply or a pong read in the same turn as its
            // deadline is handled before the deadline decides it never came. What the timers start runs now.
            if fireDueTimers() { runTasks() }
            finishTurn()
        }
    }

    /// Milliseconds epoll_wait may sleep: 0 with tasks queued, until the next timer, or forever.
    private func waitTimeout() -> Int32 {
        if queue.withLock({ !$0.isEmpty }) { return 0 }
        guard let deadline = timers.withLock({ $0.earliestLiveDeadline() }) else { return -1 }
        let now = MonotonicTime.now()
        if deadline <= now { return 0 }
        let milliseconds = (deadline - now + 999_999) / 1_000_000
        return Int32(clamping: milliseconds)
    }

    /// Runs the timers due now; whether any ran (a cancelled one does not).
    private func fireDueTimers() -> Bool {
        let now = MonotonicTime.now()
        var fired = false
        while let timer = timers.withLock({ $0.popDue(now: now) }) {
            if timer.fire() { fired = true }
        }
        return fired
    }

    private func runTasks() {
        // Closures queued while these run wait for the turn's timers to have run something (a second pass) or for
        // the next turn, after I/O, so a busy producer cannot starve sockets; jobs get a few rounds first (see
        // `jobRoundsPerTurn`).
        var tasks: [@Sendable () -> Void] = []
        var jobs: [UnownedJob] = []
        queue.withLock { queue in
            queue.wakePending = false
            swap(&tasks, &queue.tasks)
            swap(&jobs, &queue.jobs)
        }
        for task in tasks { task() }
        let executor = asUnownedTaskExecutor()
        var round = 0
        while !jobs.isEmpty {
            for job in jobs { job.runSynchronously(on: executor) }
            jobs.removeAll(keepingCapacity: true)
            round += 1
            guard round < Self.jobRoundsPerTurn else { break }
            // Taking the queue resets the wake flag, as at the top: a flag left set over an empty queue would
            // stop the next submission from another thread from waking the loop.
            queue.withLock { queue in
                queue.wakePending = !queue.tasks.isEmpty
                swap(&jobs, &queue.jobs)
            }
        }
    }
}

/// A closure due on an `EventLoop` at a monotonic deadline; cancelling it from any thread stops it from running.
final class EventLoopTimer: Sendable {
    let deadline: UInt64
    /// Whether the work runs when the loop stops before the deadline.
    let firesOnStop: Bool
    private let work: Mutex<(@Sendable () -> Void)?>

    init(deadline: UInt64, firesOnStop: Bool = false, work: @escaping @Sendable () -> Void) {
        self.deadline = deadline
        self.firesOnStop = firesOnStop
        self.work = Mutex(work)
    }

    /// Whether the work was cancelled (or has run).
    var isCancelled: Bool { work.withLock { $0 == nil } }

    /// Prevents the work from running if it has not started; releases what the closure captured.
    func cancel() {
        _ = work.withLock { work in work.take() }
    }

    /// Runs the work unless it ran or was cancelled already; whether it ran now.
    @discardableResult
    func fire() -> Bool {
        guard let work = work.withLock({ work in work.take() }) else { return false }
        work()
        return true
    }
}

/// The thread-specific slot that names the loop running on a thread (``EventLoop/current``).
private let currentLoopKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

/// The loop's timers by deadline. Each entry keeps its timer's deadline as its key, so that sifting compares the
/// heap's own values instead of reading every timer object it passes.
private struct TimerHeap {
    private var heap = MinHeap<UInt64, EventLoopTimer>()
    /// From this many timers, an insert first drops the cancelled ones: a cancelled timer otherwise stays until its
    /// deadline (sleepers that are woken early, such as a scheduler re-armed at every new job, leave many behind).
    private var purgeThreshold = 1024

    var earliest: EventLoopTimer? { heap.min?.value }

    var count: Int { heap.count }

    var liveCount: Int { heap.count { !$0.value.isCancelled } }

    /// The deadline of the earliest timer not cancelled, dropping the cancelled ones before it, so that the loop
    /// does not wake for a timer that has nothing left to run.
    mutating func earliestLiveDeadline() -> UInt64? {
        while let first = heap.min, first.value.isCancelled { heap.popMin() }
        return heap.min?.key
    }

    /// Empties the heap, returning its timers in no particular order.
    mutating func removeAll() -> [EventLoopTimer] {
        heap.takeAll().map(\.value)
    }

    mutating func insert(_ timer: EventLoopTimer) {
        if heap.count >= purgeThreshold {
            heap.removeAll { $0.value.isCancelled }
            purgeThreshold = max(1024, heap.count * 2)
        }
        heap.push(timer, key: timer.deadline)
    }

    mutating func popDue(now: UInt64) -> EventLoopTimer? {
        guard let first = heap.min, first.key <= now else { return nil }
        return heap.popMin()?.value
    }
}

/// Nanoseconds on CLOCK_MONOTONIC, the clock every I/O timeout is measured with.
enum MonotonicTime {
    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped at zero.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
