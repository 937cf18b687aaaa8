import Foundation
import Glibc
import Synchronization

/// A child process spawned with posix_spawn, its stdin and stdout connected to close-on-exec pipes.
///
/// Used instead of Foundation's `Process`, whose internal sockets are not close-on-exec: children spawned at the
/// same time by concurrent tests inherit each other's descriptors and keep connections and pipes open for
/// seconds. Every descriptor here is close-on-exec, and the child's stdin is a lifeline: peers exit when it ends.
final class ChildProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let pid: pid_t
    private let stdinFD: Mutex<Int32>
    private let output = Mutex(Output())
    private let exit = Mutex(Exit())

    private struct Output {
        var partial: [UInt8] = []
        var lines: [String] = []
        var everything: [UInt8] = []
        var isClosed = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Exit {
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
    }

    /// Starts `arguments[0]` (looked up in PATH) with the rest as arguments. With `mergingStandardError` the
    /// child's stderr goes to the same pipe as its stdout; otherwise to this process's stderr.
    init(_ arguments: [String], mergingStandardError: Bool = false) throws {
        // Serialized, so no spawn elsewhere in the process sees these pipes before they are close-on-exec.
        let (pid, input, readFD) = try Self.spawnLock.withLock { _ throws -> (pid_t, Int32, Int32) in
            try Self.spawn(arguments, mergingStandardError: mergingStandardError)
        }
        self.pid = pid
        stdinFD = Mutex(input)
        // Threads of their own: blocking on Dispatch's global queues would starve Swift's cooperative pool,
        // which runs on the same worker threads on Linux.
        Thread { [self] in readOutput(readFD) }.start()
        Thread { [self] in reap() }.start()
    }

    private static let spawnLock = Mutex(())

    /// Spawns the child; returns its pid, the write end of its stdin and the read end of its stdout.
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

    deinit {
        if exit.withLock({ $0.status == nil }) { Glibc.kill(pid, SIGKILL) }
        closeInput()
    }

    /// Writes `data` to the child's stdin, then closes it, on a thread of its own (the write may block).
    func send(_ data: Data) {
        Thread { [self] in
            write(data)
            closeInput()
        }.start()
    }

    private func write(_ data: Data) {
        let fd = stdinFD.withLock { $0 }
        guard fd >= 0 else { return }
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
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
        let deadline = ContinuousClock.now + timeout
        while true {
            let state = output.withLock { output -> (String?, Bool) in
                if !output.lines.isEmpty { return (output.lines.removeFirst(), false) }
                return (nil, output.isClosed)
            }
            if let line = state.0 { return line }
            if state.1 { return nil }
            guard ContinuousClock.now < deadline else { throw Failure(description: "no output within \(timeout)") }
            await waitForOutput(until: deadline)
        }
    }

    /// Everything the child printed, once its output has ended.
    func allOutput() async -> [UInt8] {
        while !output.withLock({ $0.isClosed }) {
            await waitForOutput(until: ContinuousClock.now + .seconds(60))
        }
        return output.withLock { $0.everything }
    }

    /// The exit status (or 128 + signal), once the child has exited.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status = exit.withLock { exit -> Int32? in
                if let status = exit.status { return status }
                exit.waiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Sends `signal` to the child.
    func kill(_ signal: Int32 = SIGKILL) {
        if exit.withLock({ $0.status == nil }) { Glibc.kill(pid, signal) }
    }

    private func waitForOutput(until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = output.withLock { output -> Bool in
                if !output.lines.isEmpty || output.isClosed { return true }
                output.waiters.append(continuation)
                return false
            }
            if ready {
                continuation.resume()
                return
            }
            let delay = max(0, Double((deadline - ContinuousClock.now).components.seconds)) + 0.05
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in wakeOutputWaiters() }
        }
    }

    private func wakeOutputWaiters() {
        let waiters = output.withLock { output -> [CheckedContinuation<Void, Never>] in
            defer { output.waiters = [] }
            return output.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Blocking reads on a thread of its own.
    private func readOutput(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            output.withLock { output in
                if count > 0 {
                    output.everything.append(contentsOf: buffer[0..<count])
                    output.partial.append(contentsOf: buffer[0..<count])
                    while let newline = output.partial.firstIndex(of: 0x0A) {
                        output.lines.append(String(decoding: output.partial[..<newline], as: UTF8.self))
                        output.partial.removeSubrange(...newline)
                    }
                } else {
                    output.isClosed = true
                }
            }
            wakeOutputWaiters()
            if count <= 0 { break }
        }
        Glibc.close(fd)
    }

    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let code: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        let waiters = exit.withLock { exit -> [CheckedContinuation<Int32, Never>] in
            exit.status = code
            defer { exit.waiters = [] }
            return exit.waiters
        }
        for waiter in waiters { waiter.resume(returning: code) }
    }
}
