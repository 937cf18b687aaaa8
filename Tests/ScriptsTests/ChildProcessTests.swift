import Foundation
import Glibc
import TestSupport
import Testing

/// The tests' child processes: killing one takes what it started with it, so nothing a test gave up on keeps running.
@Suite struct ChildProcessTests {
    /// Whether process `pid` has ended (gone, or a zombie waiting for its new parent to reap it).
    static func hasEnded(_ pid: String) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        // The state follows the command's closing parenthesis.
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    @Test func killingAChildEndsTheProcessesItStarted() async throws {
        let child = try ChildProcess(["sh", "-c", "sleep 300 & echo $!; wait"], discardingInput: true)
        let grandchild = try #require(try await child.nextLine())
        #expect(!Self.hasEnded(grandchild))
        child.kill()
        #expect(await child.termination(timeout: .seconds(30)) == .signalled(SIGKILL))
        #expect(await eventually { Self.hasEnded(grandchild) })
    }

    @Test func otherSignalsReachTheChildAlone() async throws {
        let child = try ChildProcess(["sh", "-c", "trap 'echo got TERM' TERM; sleep 300 & echo $!; wait; wait"], discardingInput: true)
        let grandchild = try #require(try await child.nextLine())
        child.kill(SIGTERM)
        #expect(try await child.nextLine() == "got TERM")
        #expect(!Self.hasEnded(grandchild), "the grandchild got no SIGTERM")
        child.kill()
        #expect(await eventually { Self.hasEnded(grandchild) })
    }
}
