import ChildProcesses
import Foundation
import Glibc

/// A built executable of bots (`example-bots`, `CrashTestBots`) running as a child process, its output captured to files (a pipe could
/// fill up and stall it), its exit awaited without blocking.
package final class BotProcess: Sendable {
    package enum Exit: Equatable {
        /// `exit(code)`.
        case code(Int32)
        /// Killed by this signal.
        case signal(Int32)
    }

    private let child: ChildProcess
    package let outputFile: URL
    package let errorFile: URL

    /// The executable `name` next to the test bundle (both live in the build's products directory).
    package static func executable(_ name: String = "example-bots") throws -> URL {
        let testBinary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        var candidates = [testBinary.deletingLastPathComponent()]
        // `swift test` may run the tests from inside `<name>.xctest`; the products are beside it.
        candidates.append(testBinary.deletingLastPathComponent().deletingLastPathComponent())
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug"))
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw ProcessTestError("\(name) is not built next to the tests (looked in \(candidates.map(\.path))); "
            + "run `swift build --build-tests` first")
    }

    /// Starts `executable` with `arguments` in `directory`, with `environment` added to this process's.
    package init(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], label: String,
        executable: String = "example-bots"
    ) throws {
        outputFile = directory.appendingPathComponent("\(label).out")
        errorFile = directory.appendingPathComponent("\(label).err")
        // A crash's backtrace without symbol lookups: in a debug build they can hold a dying process past a test's
        // hang guard, and no test reads the frames' names. A setting given or inherited is kept.
        let inherited = ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"]
        let backtrace = inherited.map { $0.contains("symbolicate") ? $0 : $0 + ",symbolicate=off" } ?? "symbolicate=off"
        let environment = ["SWIFT_BACKTRACE": backtrace].merging(environment) { _, given in given }
        child = try ChildProcess(
            [try Self.executable(executable).path] + arguments, workingDirectory: directory.path, environment: environment,
            standardOutput: .file(outputFile.path), standardError: .file(errorFile.path), discardingInput: true)
    }

    package var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }
    package var errors: String { (try? String(contentsOf: errorFile, encoding: .utf8)) ?? "" }

    /// The child's process id (e.g. to put it in a cgroup).
    package var pid: pid_t { child.pid }

    /// Whether the process has ended.
    package var hasExited: Bool { child.hasExited }

    package func send(_ signal: Int32) {
        child.kill(signal)
    }

    /// How the process ended, or nil if it is still running after `timeout` (then it is killed).
    package func waitForExit(timeout: Duration = .hangGuard) async -> Exit? {
        guard let termination = await child.termination(timeout: timeout) else {
            child.kill(SIGKILL)
            _ = await child.termination(timeout: .hangGuard)
            return nil
        }
        switch termination {
        case .exited(let code): return .code(code)
        case .signalled(let signal): return .signal(signal)
        }
    }
}

package struct ProcessTestError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
