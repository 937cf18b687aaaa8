import CLinuxIO
import Foundation
import Glibc
import Synchronization

/// A child process spawned with posix_spawn: the one way the tests and the benchmark start a subprocess.
///
/// Used instead of Foundation's `Process`. That one leaves its descriptors open across exec, so children spawned at
/// the same time by concurrent tests inherit each other's pipes and sockets and keep them open; on Linux its
/// termination handler is occasionally never called; and in Swift 6.3 its `run()` can fault while it lists
/// `/proc/self/fd` in a process with many descriptors open. Here the child gets only stdin, stdout and stderr
/// (every other descriptor is closed in it, in the same step as the exec), the default signal dispositions and an
/// empty signal mask (a dispatch thread that spawns it blocks signals, which the child would inherit), blocking
/// reads, writes and `waitpid` run on threads of their own (never the cooperative pool), and releasing the value
/// kills the child if it is still running. Every wait for its output is bounded by the caller (a test by its hang
/// guard, the benchmark by its own), so that no default in real time decides a test.
package final class ChildProcess: Sendable {
    /// Where one of the child's output streams goes.
    package enum Output: Sendable, Equatable {
        /// A pipe this process reads: `nextLine`, `allOutput`.
        case pipe
        /// A file, created or truncated (readable by the owner only).
        case file(String)
        /// For standard error only: the same place as standard output.
        case standardOutput
        /// This process's own stream, through a pipe a thread of this process copies from: a child that outlives this
        /// process (a crash ends it without stopping its children) does not keep this process's stream open, so
        /// whoever reads it sees its end.
        case inherited
        /// /dev/null.
        case discarded
    }

    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It called `exit(code)`.
        case exited(Int32)
        /// A signal killed it.
        case signalled(Int32)

        /// The shell's encoding: the exit code, or 128 + the signal.
        package var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        package var description: String {
            switch self {
            case .exited(let code): "exited with \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    /// Starting the child failed.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package let pid: pid_t
    private let input: InputPipe
    private let output = OutputBuffer()
    private let exit = ExitStatus()

    /// Starts `arguments[0]` (looked up in `PATH`) with the rest as its arguments, in `workingDirectory` (nil: this
    /// process's), with `environment` added to this process's and the variables in `unsetting` removed. Standard
    /// input is a pipe (`send`, `closeInput`) unless `discardingInput`, then /dev/null.
    package init(
        _ arguments: [String], workingDirectory: String? = nil, environment: [String: String] = [:],
        unsetting: Set<String> = [], standardOutput: Output = .pipe, standardError: Output = .inherited,
        discardingInput: Bool = false
    ) throws {
        guard !arguments.isEmpty else { throw Failure("no program to start") }
        guard standardOutput != .standardOutput else { throw Failure("standard output cannot go to itself") }
        let spawned = try Self.spawn(
            arguments, workingDirectory: workingDirectory, environment: environment, unsetting: unsetting,
            standardOutput: standardOutput,
            standardError: standardError, discardingInput: discardingInput)
        pid = spawned.pid
        input = InputPipe(spawned.input, childExit: exit)
        // The threads hold the buffers, not `self`, so releasing the value still kills the child.
        let output = output, exit = exit, pid = spawned.pid
        if let readFD = spawned.output {
            Thread { output.read(from: readFD) }.start()
        } else {
            output.markClosed()
        }
        // The child's end is made known once its inherited output is copied too (at most a second later: something
        // the child started may keep the pipe open), so that its last words come before what follows its end.
        let copied = DispatchSemaphore(value: 0), copies = spawned.forwarded.count
        Thread {
            exit.reap(pid) {
                let deadline = DispatchTime.now() + 1
                for _ in 0..<copies where copied.wait(timeout: deadline) == .timedOut { break }
            }
        }.start()
        for pipe in spawned.forwarded {
            Thread {
                Self.copy(from: pipe.from, to: pipe.to)
                copied.signal()
            }.start()
        }
    }

    /// Copies what arrives on `source` to `target` until the end of `source`, then closes it; blocks, so it runs on a
    /// thread of its own. When `target` fails (its reader gone) the rest is read and dropped, so the child never
    /// blocks on a full pipe. A `target` someone made non-blocking is waited on, not dropped from. Each write is at
    /// most `PIPE_BUF` bytes, so that a pipe takes it whole; a line that crosses two reads is still written in two.
    private static func copy(from source: Int32, to target: Int32) {
        var buffer = [UInt8](repeating: 0, count: Int(PIPE_BUF))
        var targetFailed = false
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            var offset = 0
            while offset < count && !targetFailed {
                guard let written = writeWhatFits(buffer[offset..<count], to: target) else {
                    targetFailed = true
                    break
                }
                offset += written
                if offset < count { waitForRoom(in: target) }
            }
        }
        Glibc.close(source)
    }

    /// Starts `arguments` with both output streams merged into the pipe (the shape most peers want).
    package convenience init(_ arguments: [String], mergingStandardError: Bool) throws {
        try self.init(arguments, standardError: mergingStandardError ? .standardOutput : .inherited)
    }

    deinit {
        kill(SIGKILL)
        closeInput()
    }

    /// Writes `data` to the child's stdin, after everything sent before, never blocking (what the pipe cannot take yet
    /// is written by a thread of its own); then closes stdin unless told not to. A child that has gone loses the data.
    package func send(_ data: Data, closingInput: Bool = true) {
        input.write(data, closingAfterwards: closingInput)
    }

    /// Writes `line` and a newline to the child's stdin, which stays open.
    package func send(line: String) {
        input.write(Data((line + "\n").utf8), closingAfterwards: false)
    }

    /// Closes the child's stdin (end of file for it) once everything sent so far is written.
    package func closeInput() {
        input.close()
    }

    /// Whether the child's stdin is open: false once it was closed, or once a write to it failed.
    package var isInputOpen: Bool { input.isOpen }

    /// Runs `arguments` to its end with no input and returns how it ended and what it printed (standard output and
    /// error together); throws after `timeout` without output's end.
    package static func run(
        _ arguments: [String], timeout: Duration
    ) async throws -> (termination: Termination, output: String) {
        let child = try ChildProcess(
            arguments, standardOutput: .pipe, standardError: .standardOutput, discardingInput: true)
        let output = String(decoding: try await child.allOutput(timeout: timeout), as: UTF8.self)
        return (await child.termination(), output)
    }

    /// The next line the child printed to the pipe, nil once its output ended; throws after `timeout` (nil: never).
    /// A child's output is read line by line or whole (``allOutput(timeout:)``): the first read decides, and reading
    /// it the other way then throws.
    package func nextLine(timeout: Duration?) async throws -> String? {
        try await output.nextLine(timeout: timeout)
    }

    /// Everything the child printed to the pipe, once its output has ended; throws after `timeout`, or if the output is
    /// read line by line.
    package func allOutput(timeout: Duration) async throws -> [UInt8] {
        try await output.everything(timeout: timeout)
    }

    /// How the child ended, once it has.
    package func termination() async -> Termination {
        await exit.value()
    }

    /// How the child ended, or nil if it is still running after `timeout`.
    package func termination(timeout: Duration) async -> Termination? {
        await exit.value(timeout: timeout)
    }

    /// How the child ended, waiting on the calling thread (for synchronous code such as a deinit, and short-lived
    /// children only); nil if it is still running after `timeout`.
    package func terminationBlocking(timeout: Duration) -> Termination? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let termination = exit.known { return termination }
            usleep(1_000)
        }
        return exit.known
    }

    /// The exit status (or 128 + signal), once the child has exited.
    package func exitStatus() async -> Int32 {
        await termination().status
    }

    /// Whether the child has been reaped.
    package var hasExited: Bool { exit.hasExited }

    /// Closes the child's stdin (the way many children are told to end) and waits for it to exit; if it is still
    /// running after `timeout`, stops it (``stop(grace:)``). Returns how it ended.
    @discardableResult
    package func finish(within timeout: Duration, grace: Duration = .seconds(5)) async -> Termination {
        closeInput()
        if let termination = await termination(timeout: timeout) { return termination }
        return await stop(grace: grace)
    }

    /// Asks the child to stop (SIGTERM, to the child alone), and if it is still running after `grace` kills it with
    /// its process group (``kill(_:)``); returns how it ended.
    @discardableResult
    package func stop(grace: Duration) async -> Termination {
        kill(SIGTERM)
        if let termination = await termination(timeout: grace) { return termination }
        kill(SIGKILL)
        return await termination()
    }

    /// Sends `signal` to the child, unless it has already been reaped. SIGKILL goes to its whole process group: the
    /// processes it started go with it (a crashed Swift program's backtracer, left behind, can spin on a core for
    /// good), while other signals reach the child alone, which passes them on as it means to.
    package func kill(_ signal: Int32 = SIGKILL) {
        guard !exit.hasExited else { return }
        Glibc.kill(signal == SIGKILL ? -pid : pid, signal)
    }

    /// Spawns the child; returns its pid, the write end of its stdin (-1 without one), the read end of the pipe its
    /// output goes to (nil without one), and the pipes to copy to this process's own streams (`.inherited`). Every
    /// descriptor made here is close-on-exec from birth, so a concurrent spawn elsewhere in this process cannot
    /// inherit it.
    private static func spawn(
        _ arguments: [String], workingDirectory: String?, environment: [String: String], unsetting: Set<String>,
        standardOutput: Output,
        standardError: Output, discardingInput: Bool
    ) throws -> (pid: pid_t, input: Int32, output: Int32?, forwarded: [(from: Int32, to: Int32)]) {
        var ownDescriptors: [Int32] = []  // closed here once the child has its copies
        var input: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        var forwarded: [(read: Int32, write: Int32, target: Int32)] = []
        func closeAll() {
            for fd in ownDescriptors + [input[1], outputPipe[0]] + forwarded.map(\.read) where fd >= 0 { Glibc.close(fd) }
        }
        if !discardingInput {
            guard pipe2(&input, O_CLOEXEC) == 0 else { throw Failure("pipe2 failed: errno \(errno)") }
            ownDescriptors.append(input[0])
        }
        if standardOutput == .pipe || standardError == .pipe {
            guard pipe2(&outputPipe, O_CLOEXEC) == 0 else {
                closeAll()
                throw Failure("pipe2 failed: errno \(errno)")
            }
            ownDescriptors.append(outputPipe[1])
        }
        for (output, target) in [(standardOutput, Int32(1)), (standardError, Int32(2))] where output == .inherited {
            var forward: [Int32] = [-1, -1]
            guard pipe2(&forward, O_CLOEXEC) == 0 else {
                closeAll()
                throw Failure("pipe2 failed: errno \(errno)")
            }
            ownDescriptors.append(forward[1])
            forwarded.append((read: forward[0], write: forward[1], target: target))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if discardingInput {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        } else {
            posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        }
        func route(_ output: Output, to target: Int32) {
            switch output {
            case .pipe: posix_spawn_file_actions_adddup2(&actions, outputPipe[1], target)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, target)
            case .inherited:
                if let pipe = forwarded.first(where: { $0.target == target }) {
                    posix_spawn_file_actions_adddup2(&actions, pipe.write, target)
                }
            case .discarded: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            }
        }
        route(standardOutput, to: 1)
        route(standardError, to: 2)
        // Everything else the child would inherit (descriptors others opened without close-on-exec) is closed.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        if let workingDirectory { posix_spawn_file_actions_addchdir_np(&actions, workingDirectory) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGPIPE, SIGCHLD, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        // A process group of its own (led by the child), so that SIGKILL reaches what it started too.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var variables = ProcessInfo.processInfo.environment
        variables.merge(environment) { _, new in new }
        for name in unsetting { variables.removeValue(forKey: name) }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        for fd in ownDescriptors { Glibc.close(fd) }
        ownDescriptors = []
        guard result == 0 else {
            closeAll()
            throw Failure("cannot start \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return (pid, input[1], outputPipe[0] >= 0 ? outputPipe[0] : nil, forwarded.map { (from: $0.read, to: $0.target) })
    }
}

/// The write end of a child's stdin, non-blocking. Writes go in the order sent: straight from the sender's thread
/// while the pipe has room, and by a thread of its own, one at a time, while it is full. A child that has gone makes a
/// write fail with EPIPE; the SIGPIPE that comes with it is kept from ending this process. A child reaped while
/// something it started still holds the pipe unread ends the waiting too: what is pending is dropped.
private final class InputPipe: Sendable {
    private struct State {
        var fd: Int32
        /// Bytes sent and not written yet; only while a writer thread runs.
        var pending: [UInt8] = []
        var closeRequested = false
        var isWriting = false
    }

    private let state: Mutex<State>
    private let childExit: ExitStatus

    /// `fd` is -1 when the child has no stdin pipe.
    init(_ fd: Int32, childExit: ExitStatus) {
        if fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        state = Mutex(State(fd: fd))
        self.childExit = childExit
    }

    func write(_ data: Data, closingAfterwards: Bool) {
        let startsWriter = state.withLock { state -> Bool in
            guard state.fd >= 0, !state.closeRequested else { return false }
            if closingAfterwards { state.closeRequested = true }
            guard !state.isWriting else {
                state.pending.append(contentsOf: data)
                return false
            }
            let bytes = [UInt8](data)
            guard let written = writeWhatFits(bytes[...], to: state.fd) else {
                Self.close(&state)
                return false
            }
            guard written < bytes.count else {
                if state.closeRequested { Self.close(&state) }
                return false
            }
            state.pending = Array(bytes[written...])
            state.isWriting = true
            return true
        }
        if startsWriter { Thread { self.drain() }.start() }
    }

    var isOpen: Bool { state.withLock { $0.fd >= 0 } }

    /// Closes the pipe once everything sent is written.
    func close() {
        state.withLock { state in
            state.closeRequested = true
            if !state.isWriting { Self.close(&state) }
        }
    }

    /// Writes what is pending as the pipe takes it, then closes it if asked to; runs on a thread of its own.
    private func drain() {
        while true {
            let (bytes, fd) = state.withLock { state -> ([UInt8], Int32) in
                if state.pending.isEmpty {
                    // Done, in the same step that lets the next `write` go straight to the pipe.
                    state.isWriting = false
                    if state.closeRequested { Self.close(&state) }
                }
                return (state.pending, state.fd)
            }
            guard !bytes.isEmpty else { return }
            while !waitForRoom(in: fd, milliseconds: 1_000) {
                guard childExit.hasExited else { continue }
                state.withLock { state in
                    Self.close(&state)
                    state.isWriting = false
                }
                return
            }
            let written = writeWhatFits(bytes[...], to: fd)
            let more = state.withLock { state -> Bool in
                guard let written else {
                    Self.close(&state)
                    state.isWriting = false
                    return false
                }
                state.pending.removeFirst(written)
                return true
            }
            if !more { return }
        }
    }

    private static func close(_ state: inout State) {
        if state.fd >= 0 { Glibc.close(state.fd) }
        state.fd = -1
        state.pending = []
        state.closeRequested = true
    }
}

/// Writes what `fd` takes of `bytes` now: the count written (less than all when it is non-blocking and full), or
/// nil when it failed. A failed write's SIGPIPE is blocked on this thread and taken back off it, so the process never
/// gets it.
private func writeWhatFits(_ bytes: ArraySlice<UInt8>, to fd: Int32) -> Int? {
    var pipeSignal = sigset_t()
    sigemptyset(&pipeSignal)
    sigaddset(&pipeSignal, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
            Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
        }
        if written > 0 {
            offset += written
            continue
        }
        if written < 0 && errno == EINTR { continue }
        if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return offset }
        if written < 0 && errno == EPIPE {
            var immediately = timespec(tv_sec: 0, tv_nsec: 0)
            _ = sigtimedwait(&pipeSignal, nil, &immediately)
        }
        return nil
    }
    return offset
}

/// Blocks until `fd` has room for a write (or has failed, which the write then reports), for at most `milliseconds`
/// (-1: no limit); false when the time ran out first.
@discardableResult
private func waitForRoom(in fd: Int32, milliseconds: Int32 = -1) -> Bool {
    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
    return poll(&ready, 1, milliseconds) != 0
}

/// What a child printed, filled by a reading thread.
private final class OutputBuffer: Sendable {
    /// How the output is read, fixed by the first read: only that way's buffer is kept, so a long-running child read
    /// line by line costs only the lines not read yet.
    private enum Reading {
        case undecided, byLine, whole
    }

    private struct State {
        var reading = Reading.undecided
        var partial: [UInt8] = []
        var lines: [String] = []
        var everything: [UInt8] = []
        var isClosed = false
        var waiters: [CheckedContinuation<Void, Never>] = []

        /// Takes `reading` as the way the output is read; false if it was already read the other way.
        mutating func read(_ way: Reading) -> Bool {
            switch (reading, way) {
            case (.undecided, .byLine):
                everything = []
            case (.undecided, .whole):
                lines = []
                partial = []
            default:
                return reading == way
            }
            reading = way
            return true
        }
    }

    private let state = Mutex(State())

    /// Blocking reads until end of file; call on a thread of its own.
    func read(from fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            state.withLock { state in
                if count > 0 {
                    if state.reading != .byLine { state.everything.append(contentsOf: buffer[0..<count]) }
                    guard state.reading != .whole else { return }
                    state.partial.append(contentsOf: buffer[0..<count])
                    while let newline = state.partial.firstIndex(of: 0x0A) {
                        state.lines.append(String(decoding: state.partial[..<newline], as: UTF8.self))
                        state.partial.removeSubrange(...newline)
                    }
                } else {
                    if !state.partial.isEmpty {
                        state.lines.append(String(decoding: state.partial, as: UTF8.self))
                        state.partial = []
                    }
                    state.isClosed = true
                }
            }
            wakeWaiters()
            if count <= 0 { break }
        }
        Glibc.close(fd)
    }

    /// No pipe: the output is over before it began.
    func markClosed() {
        state.withLock { $0.isClosed = true }
    }

    /// The next line; throws once `timeout` (nil: none) has passed without one.
    func nextLine(timeout: Duration?) async throws -> String? {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let (line, closed) = try state.withLock { state -> (String?, Bool) in
                guard state.read(.byLine) else { throw ChildProcess.Failure("the output is read whole (allOutput)") }
                if !state.lines.isEmpty { return (state.lines.removeFirst(), false) }
                return (nil, state.isClosed)
            }
            if let line { return line }
            if closed { return nil }
            if let deadline, let timeout, ContinuousClock.now >= deadline {
                throw ChildProcess.Failure("no output within \(timeout)")
            }
            await waitForChange(until: deadline)
        }
    }

    func everything(timeout: Duration) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (bytes, closed) = try state.withLock { state -> ([UInt8], Bool) in
                guard state.read(.whole) else { throw ChildProcess.Failure("the output is read line by line (nextLine)") }
                return (state.everything, state.isClosed)
            }
            if closed { return bytes }
            guard ContinuousClock.now < deadline else {
                throw ChildProcess.Failure("the output did not end within \(timeout); so far: \(String(decoding: bytes, as: UTF8.self))")
            }
            await waitForChange(until: deadline, anyOutput: true)
        }
    }

    /// Suspends until a line arrives (or with `anyOutput`, any output), the output ends, or `deadline` (if any)
    /// passes.
    private func waitForChange(until deadline: ContinuousClock.Instant?, anyOutput: Bool = false) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if (!anyOutput && !state.lines.isEmpty) || state.isClosed { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready {
                continuation.resume()
                return
            }
            guard let deadline else { return }
            let remaining = deadline - ContinuousClock.now
            let delay = max(0, Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18) + 0.01
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in wakeWaiters() }
        }
    }

    private func wakeWaiters() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A child's termination, filled by a waiting thread.
private final class ExitStatus: Sendable {
    private struct State {
        /// Whether waitpid returned: from then on the pid may belong to another process.
        var isReaped = false
        var termination: ChildProcess.Termination?
        var waiters: [UInt64: CheckedContinuation<ChildProcess.Termination?, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())

    var hasExited: Bool { state.withLock { $0.isReaped } }

    var known: ChildProcess.Termination? { state.withLock { $0.termination } }

    /// Blocks in waitpid, then in `afterExit`, then makes the end known; call on a thread of its own.
    func reap(_ pid: pid_t, afterExit: () -> Void) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        state.withLock { $0.isReaped = true }
        afterExit()
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import as macros.
        let termination: ChildProcess.Termination =
            (status & 0x7F) == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
        let waiters = state.withLock { state -> [CheckedContinuation<ChildProcess.Termination?, Never>] in
            state.termination = termination
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: termination) }
    }

    func value() async -> ChildProcess.Termination {
        while true {
            if let termination = await value(timeout: .seconds(3600)) { return termination }
        }
    }

    /// The termination, or nil once `timeout` has passed without one.
    func value(timeout: Duration) async -> ChildProcess.Termination? {
        await withCheckedContinuation { continuation in
            let (known, waiter) = state.withLock { state -> (ChildProcess.Termination??, UInt64) in
                if let termination = state.termination { return (.some(termination), 0) }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return (nil, state.nextWaiter)
            }
            if let known {
                continuation.resume(returning: known)
                return
            }
            let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                let expired = state.withLock { $0.waiters.removeValue(forKey: waiter) }
                expired?.resume(returning: nil)
            }
        }
    }
}
