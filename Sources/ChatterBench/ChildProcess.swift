import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process the bench drives (the server under test, the Python peer): started with a pipe on stdin, so
/// that it ends when the bench does, and stdout read line by line off the cooperative pool.
final class ChildProcess: Sendable {
    let process: Process
    /// The child's stdout, one line at a time; finishes when the child closes it.
    let lines: AsyncStream<String>
    private let stdin: Pipe

    /// Starts `executable` with `arguments`; its stderr goes to the bench's stderr.
    init(executable: URL, arguments: [String], environment: [String: String]? = nil) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.process = process
        self.lines = lines
        self.stdin = input
        try process.run()
        let handle = output.fileHandleForReading
        // A thread of its own blocks on the pipe; the cooperative pool never does.
        let reader = Thread {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            let fd = handle.fileDescriptor
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
                if count <= 0 { break }
                buffer.append(contentsOf: chunk[0..<count])
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
            }
            if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
            continuation.finish()
        }
        reader.stackSize = 1 << 20
        reader.start()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Sends SIGTERM and waits (off the pool) until the child has exited, killing it after `grace`.
    func terminate(grace: Duration = .seconds(30)) async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + grace
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Closes the child's stdin (the peer and the server take it as "stop").
    func closeInput() {
        try? stdin.fileHandleForWriting.close()
    }

    /// Writes one line to the child's stdin.
    func send(line: String) {
        try? stdin.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }
}

/// The server under test, in its own process (`chatter-bench serve`).
final class ServerProcess: Sendable {
    let child: ChildProcess
    let announcement: ServeAnnouncement

    var endpoint: ServerEndpoint { announcement.endpoint }
    var pid: Int32 { child.pid }

    private init(child: ChildProcess, announcement: ServeAnnouncement) {
        self.child = child
        self.announcement = announcement
    }

    /// Starts `chatter-bench serve` with `options` (plus `--world` when a spec is given) and waits until it listens.
    static func start(
        kind: ServeOptions.Kind, port: Int = 0, storePath: String?, world spec: WorldSpec?, heartbeatMilliseconds: Int,
        workDirectory: URL
    ) async throws -> ServerProcess {
        var arguments = ["serve", "--server", kind.rawValue, "--port", String(port), "--heartbeat-ms", String(heartbeatMilliseconds)]
        if let storePath { arguments += ["--store", storePath] }
        if let spec {
            let url = workDirectory.appendingPathComponent("world-\(UUID().uuidString).json")
            try JSONEncoder().encode(spec).write(to: url)
            arguments += ["--world", url.path]
        }
        let child = try ChildProcess(executable: BenchCommand.executableURL, arguments: arguments)
        for await line in child.lines {
            guard line.hasPrefix("{") else { continue }
            let announcement = try JSONDecoder().decode(ServeAnnouncement.self, from: Data(line.utf8))
            return ServerProcess(child: child, announcement: announcement)
        }
        await child.terminate()
        throw BenchFailure("the server process exited before it listened (see its error above)")
    }

    /// Shuts the server down gracefully (SIGTERM: sockets closed with 1001, store closed) and waits for the exit.
    func stop() async {
        await child.terminate()
    }
}

/// A benchmark that could not be carried out; the text says why.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
