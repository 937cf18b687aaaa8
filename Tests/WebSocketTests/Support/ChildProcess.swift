import Foundation
import Glibc
import Synchronization

/// A child process spawned with posix_spawn, its stdin and stdout connected to pipes.
///
/// Used instead of Foundation's `Process`, whose descriptors are not close-on-exec: children spawned at the same
/// time by concurrent tests would inherit each other's pipes and sockets and keep them open. Here the child gets
/// only stdin, stdout and stderr (every other descriptor is closed in it), blocking reads and waits run on
/// threads of their own (never the cooperative pool), and releasing the value kills the child if still running.
final class ChildProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    private let stdinFD: Mutex<Int32>
    private let output = OutputBuffer()
    private let exit = ExitStatus()

    /// Starts `arguments[0]` (looked up in PATH) with the rest as arguments. With `mergingStandardError` the
    /// child's stderr goes to the same pipe as its stdout; otherwise to this process's stderr.
    init(_ arguments: [String], mergingStandardError: Bool = false) throws {
        let (pid, input, readFD) = try Self.spawnLock.withLock { _ throws -> (pid_t, Int32, Int32) in
            try Self.spawn(arguments, mergingStandardError: mergingStandardError)
        }
        self.pid = pid
        stdinFD = Mutex(input)
        // The threads hold the buffers, not `self`, so releasing the value still kills the child.
        let output = output, exit = exit
        Thread { output.read(from: readFD) }.start()
        Thread { exit.reap(pid) }.start()
    }

    deinit {
        if !exit.hasExited { Glibc.kill(pid, SIGKILL) }
        closeInput()
    }

    /// Writes `data` to the child's stdin, then closes it, on a thread of its own (the write may block).
    func send(_ data: Data) {
        let fd = stdinFD.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        guard fd >= 0 else { return }
        Thread {
            data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count, let base = raw.baseAddress {
                    let written = Glibc.write(fd, base + offset, raw.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            Glibc.close(fd)
        }.start()
    }

    /// Closes the child's stdin (end of file for it).
    func closeInput() {
        let fd = stdinFD.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        if fd >= 0 { Glibc.close(fd) }
    }

    /// The next line the child printed, nil once its output ended; fails after `timeout`.
    func nextLine(timeout: Duration = .seconds(20)) async throws -> String? {
        try await output.nextLine(timeout: timeout)
    }

    /// Everything the child printed, once its output has ended.
    func allOutput() async -> [UInt8] {
        await output.everything()
    }

    /// The exit status (or 128 + signal), once the child has exited.
    func exitStatus() async -> Int32 {
        await exit.value()
    }

    /// Sends `signal` to the child.
    func kill(_ signal: Int32 = SIGKILL) {
        if !exit.hasExited { Glibc.kill(pid, signal) }
    }

    private static let spawnLock = Mutex(())

    /// Spawns the child (under `spawnLock`, so no other spawn of ours sees the pipes before they are
    /// close-on-exec); returns its pid, the write end of its stdin and the read end of its stdout.
    private static func spawn(_ arguments: [String], mergingStandardError: Bool) throws -> (pid_t, Int32, Int32) {
        var input: [Int32] = [-1, -1]
        var outputPipe: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&outputPipe) == 0 else {
            throw Failure(description: "pipe failed: errno \(errno)")
        }
        for fd in input + outputPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        if mergingStandardError { posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 2) }
        // Close everything else the child would inherit (descriptors others opened without close-on-exec).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.compactMap { Int32($0) } ?? []
        for fd in open where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        let cArguments = arguments.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, arguments[0], &actions, nil, cArguments, environ)
        Glibc.close(input[0])
        Glibc.close(outputPipe[1])
        guard result == 0 else {
            Glibc.close(input[1])
            Glibc.close(outputPipe[0])
            throw Failure(description: "cannot start \(arguments[0]): errno \(result)")
        }
        return (pid, input[1], outputPipe[0])
    }
}

/// What a child printed, filled by a reading thread.
private final class OutputBuffer: Sendable {
    private struct State {
        var partial: [UInt8] = []
        var lines: [String] = []
        var everything: [UInt8] = []
        var isClosed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
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
                    state.everything.append(contentsOf: buffer[0..<count])
                    state.partial.append(contentsOf: buffer[0..<count])
                    while let newline = state.partial.firstIndex(of: 0x0A) {
                        state.lines.append(String(decoding: state.partial[..<newline], as: UTF8.self))
                        state.partial.removeSubrange(...newline)
                    }
                } else {
                    state.isClosed = true
                }
            }
            wakeWaiters()
            if count <= 0 { break }
        }
        Glibc.close(fd)
    }

    func nextLine(timeout: Duration) async throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (line, closed) = state.withLock { state -> (String?, Bool) in
                if !state.lines.isEmpty { return (state.lines.removeFirst(), false) }
                return (nil, state.isClosed)
            }
            if let line { return line }
            if closed { return nil }
            guard ContinuousClock.now < deadline else { throw ChildProcess.Failure(description: "no output within \(timeout)") }
            await waitForChange(until: deadline)
        }
    }

    func everything() async -> [UInt8] {
        while true {
            let (bytes, closed) = state.withLock { ($0.everything, $0.isClosed) }
            if closed { return bytes }
            await waitForChange(until: ContinuousClock.now + .seconds(60))
        }
    }

    private func waitForChange(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if !state.lines.isEmpty || state.isClosed { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready {
                continuation.resume()
                return
            }
            let delay = max(0, Double((deadline - ContinuousClock.now).components.seconds)) + 0.05
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

/// A child's exit status, filled by a waiting thread.
private final class ExitStatus: Sendable {
    private struct State {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    private let state = Mutex(State())

    var hasExited: Bool { state.withLock { $0.status != nil } }

    /// Blocks in waitpid; call on a thread of its own.
    func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let waiters = state.withLock { state -> [CheckedContinuation<Int32, Never>] in
            state.status = code
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: code) }
    }

    func value() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state -> Int32? in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }
}
