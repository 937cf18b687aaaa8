import ChildProcesses
import Foundation
import TestSupport

/// Runs the `curl` command as a child process.
enum Curl {
    struct Output: Sendable {
        var exitStatus: Int32
        var stdout: String
    }

    /// `curl -s -S <arguments>` bounded by the hang guard, with `input` on stdin.
    static func run(_ arguments: [String], input: Data = Data()) async throws -> Output {
        let child = try ChildProcess([try TestPeer.command("curl"), "-s", "-S", "--max-time", Duration.hangGuardSeconds] + arguments)
        child.send(input)
        let output = try await child.allOutput(timeout: .hangGuard)
        return Output(exitStatus: await child.exitStatus(), stdout: String(decoding: output, as: UTF8.self))
    }

    /// The status code and body of one request; the status comes from `--write-out`.
    static func request(_ arguments: [String], input: Data = Data()) async throws -> (status: Int, body: String) {
        let output = try await run(["--write-out", "\n%{http_code}"] + arguments, input: input)
        guard let split = output.stdout.lastIndex(of: "\n"), let status = Int(output.stdout[output.stdout.index(after: split)...])
        else { return (0, output.stdout) }
        return (status, String(output.stdout[..<split]))
    }
}
