import Foundation
import Glibc
import Synchronization
import Testing

/// The built `example-bots` executable running as a child process, its output captured to files (a pipe could
/// fill up and stall it), its exit awaited without blocking.
final class BotProcess: Sendable {
    enum Exit: Equatable {
        /// `exit(code)`.
        case code(Int32)
        /// Killed by this signal.
        case signal(Int32)
    }

    /// The exit status once known, and who waits for it.
    private final class ExitState: Sendable {
        let state = Mutex<(status: Exit?, waiters: [CheckedContinuation<Exit, Never>])>((nil, []))
    }

    private let process: Process
    private let exit = ExitState()
    let outputFile: URL
    let errorFile: URL

    /// `example-bots` next to the test bundle (both live in the build's products directory).
    static func executable() throws -> URL {
        let testBinary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        var candidates = [testBinary.deletingLastPathComponent()]
        // `swift test` may run the tests from inside `<name>.xctest`; the products are beside it.
        candidates.append(testBinary.deletingLastPathComponent().deletingLastPathComponent())
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let url = directory.appendingPathComponent("example-bots")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ProcessTestError("example-bots is not built next to the tests (looked in \(candidates.map(\.path))); "
            + "run `swift build --product example-bots` first")
    }

    /// Starts `example-bots` with `arguments` in `directory`, with `environment` added to this process's.
    init(_ arguments: [String], in directory: URL, environment: [String: String] = [:], label: String) throws {
        outputFile = directory.appendingPathComponent("\(label).out")
        errorFile = directory.appendingPathComponent("\(label).err")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        process.standardInput = FileHandle.nullDevice
        let exit = self.exit
        process.terminationHandler = { process in
            let status: Exit = process.terminationReason == .uncaughtSignal
                ? .signal(process.terminationStatus) : .code(process.terminationStatus)
            let waiters = exit.state.withLock { state -> [CheckedContinuation<Exit, Never>] in
                state.status = status
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: status) }
        }
        try process.run()
    }

    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    func send(_ signal: Int32) {
        _ = Glibc.kill(process.processIdentifier, signal)
    }

    /// How the process ended, or nil if it is still running after `timeout` (then it is killed).
    func waitForExit(timeout: Duration = .seconds(30)) async -> Exit? {
        let waiter = Task { [exit] in
            await withCheckedContinuation { (continuation: CheckedContinuation<Exit, Never>) in
                let done = exit.state.withLock { state -> Exit? in
                    if let status = state.status { return status }
                    state.waiters.append(continuation)
                    return nil
                }
                if let done { continuation.resume(returning: done) }
            }
        }
        let finished = await eventually(timeout: timeout) { [exit] in exit.state.withLock { $0.status != nil } }
        guard finished else {
            send(SIGKILL)
            _ = await waiter.value
            return nil
        }
        return await waiter.value
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

struct ProcessTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
