import ChildProcesses
import Foundation

/// The C floor (`bench/c_floor/echo_floor.c`): the echo bot in plain C (epoll, SQLite's C API), so that every
/// table has a column for what the machine itself does with the same sockets and SQLite. It is built with the
/// machine's `cc` the first time a run uses it, into the run's work directory, and then started like the Python
/// peer: the configuration file is its one argument.
enum CFloor {
    /// The executable's name in the work directory.
    static let executableName = "echo_floor"

    /// `bench/c_floor/echo_floor.c` of this checkout.
    static var source: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bench/c_floor/echo_floor.c")
    }

    /// The compiler's command line: `cc -O2 -o <output> <source> -lsqlite3`.
    static func buildArguments(source: URL, output: URL) -> [String] {
        ["-O2", "-o", output.path, source.path, "-lsqlite3"]
    }

    /// The first executable `cc` on `path` (a `PATH` value), or nil.
    static func compiler(path: String?) -> URL? {
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("cc")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    /// The floor's executable in `workDirectory`, built from `source` unless this run built it already.
    static func executable(in workDirectory: URL, source: URL = CFloor.source) async throws(BenchFailure) -> URL {
        let output = workDirectory.appendingPathComponent(executableName)
        if FileManager.default.isExecutableFile(atPath: output.path) { return output }
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw BenchFailure("the C floor's source is missing: \(source.path)")
        }
        guard let cc = compiler(path: ProcessInfo.processInfo.environment["PATH"]) else {
            throw BenchFailure(
                "the C floor needs a C compiler, and there is no `cc` on PATH (apt-get install gcc libsqlite3-dev), "
                    + "or leave c out of --runtimes")
        }
        do {
            try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        } catch {
            throw BenchFailure("cannot create \(workDirectory.path) for the C floor: \(error.localizedDescription)")
        }
        let arguments = [cc.path] + buildArguments(source: source, output: output)
        let built: (termination: ChildProcess.Termination, output: String)
        do {
            built = try await ChildProcess.run(arguments, timeout: .seconds(300))
        } catch {
            throw BenchFailure("cannot run \(cc.path) to build the C floor: \(error)")
        }
        guard built.termination == .exited(0) else {
            let hint = built.output.contains("sqlite3.h") ? " (SQLite's headers: apt-get install libsqlite3-dev)" : ""
            throw BenchFailure(
                "building the C floor failed\(hint): \(arguments.joined(separator: " ")) (\(built.termination))\n\(built.output)")
        }
        return output
    }
}
