import ChildProcesses
import Foundation
import Glibc
import TestSupport
import Testing

/// The child processes of the tests and the benchmark: killing one takes what it started with it, so nothing a test
/// gave up on keeps running; what is sent to one arrives whole and in order.
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
        let grandchild = try #require(try await child.nextLine(timeout: .hangGuard))
        #expect(!Self.hasEnded(grandchild))
        child.kill()
        #expect(await child.termination(timeout: .hangGuard) == .signalled(SIGKILL))
        #expect(await eventually { Self.hasEnded(grandchild) })
    }

    @Test func otherSignalsReachTheChildAlone() async throws {
        let child = try ChildProcess(["sh", "-c", "trap 'echo got TERM' TERM; sleep 300 & echo $!; wait; wait"], discardingInput: true)
        let grandchild = try #require(try await child.nextLine(timeout: .hangGuard))
        child.kill(SIGTERM)
        #expect(try await child.nextLine(timeout: .hangGuard) == "got TERM")
        #expect(!Self.hasEnded(grandchild), "the grandchild got no SIGTERM")
        child.kill()
        #expect(await eventually { Self.hasEnded(grandchild) })
    }

    @Test func linesSentOneAfterAnotherArriveInTheOrderSent() async throws {
        let child = try ChildProcess(["cat"])
        let sent = (0..<2_000).map { "line \($0)" }
        for line in sent { child.send(line: line) }
        child.closeInput()
        var received: [String] = []
        while let line = try await child.nextLine(timeout: .hangGuard) { received.append(line) }
        #expect(received == sent)
        #expect(await child.termination() == .exited(0))
    }

    /// A megabyte is more than a pipe holds, so the writer blocks until the child has read most of it.
    @Test func closingTheInputWaitsForEverythingSentBefore() async throws {
        let child = try ChildProcess(["wc", "-c"])
        child.send(Data(repeating: 0x61, count: 1 << 20), closingInput: false)
        child.send(line: "end")
        child.closeInput()
        #expect(try await child.nextLine(timeout: .hangGuard)?.trimmingCharacters(in: .whitespaces) == String((1 << 20) + 4))
        #expect(await child.termination() == .exited(0))
    }

    @Test func anOutputReadLineByLineIsNotAlsoKeptWhole() async throws {
        let child = try ChildProcess(["sh", "-c", "echo one; echo two"], discardingInput: true)
        #expect(try await child.nextLine(timeout: .hangGuard) == "one")
        await #expect(throws: ChildProcess.Failure.self) { try await child.allOutput(timeout: .hangGuard) }
        #expect(try await child.nextLine(timeout: .hangGuard) == "two")
        #expect(try await child.nextLine(timeout: .hangGuard) == nil)
    }

    @Test func anOutputReadWholeIsNotAlsoKeptByLine() async throws {
        let child = try ChildProcess(["sh", "-c", "echo one; echo two"], discardingInput: true)
        #expect(String(decoding: try await child.allOutput(timeout: .hangGuard), as: UTF8.self) == "one\ntwo\n")
        await #expect(throws: ChildProcess.Failure.self) { try await child.nextLine(timeout: .hangGuard) }
    }

    /// A process that ends without stopping its child (`CrashTestBots orphan-probe`, a `sleep 300` started with its
    /// standard error left as the probe's): whoever reads the probe's output still sees its end when the probe ends.
    @Test func aChildThatOutlivesItsParentDoesNotHoldTheParentsOutputOpen() async throws {
        let probe = try ChildProcess(
            [try BotProcess.executable("CrashTestBots").path, "orphan-probe"], standardError: .standardOutput,
            discardingInput: true)
        let line = try await probe.nextLine(timeout: .hangGuard)
        let orphan = try #require(line.flatMap { pid_t($0) }, "\(line ?? "no output")")
        defer { kill(-orphan, SIGKILL) }
        #expect(try await probe.nextLine(timeout: .hangGuard) == nil)
        #expect(await probe.termination() == .exited(0))
        #expect(!Self.hasEnded(String(orphan)), "the orphan still runs: its output was never the probe's")
    }

    /// Whether SIGPIPE would end this process (it does unless something set it aside): only then does the next test
    /// prove anything.
    static var pipeSignalEndsTheProcess: Bool {
        var current = sigaction()
        sigaction(SIGPIPE, nil, &current)
        return current.__sigaction_handler.sa_handler == nil
    }

    @Test(.enabled(if: pipeSignalEndsTheProcess))
    func writingToAChildThatClosedItsInputLosesTheDataAndNothingElse() async throws {
        let child = try ChildProcess(["sh", "-c", "exec 0<&-; echo closed; exec sleep 300"])
        #expect(try await child.nextLine(timeout: .hangGuard) == "closed")
        child.send(line: "nobody reads this")
        child.send(line: "nor this")
        child.closeInput()
        child.kill()
        #expect(await child.termination() == .signalled(SIGKILL))
    }

    /// A megabyte fills the pipe of a child that does not read, so the rest waits for a writer thread; the child is
    /// killed under it.
    @Test(.enabled(if: pipeSignalEndsTheProcess))
    func aWriteThatWaitedForRoomFailsWithoutEndingTheProcessWhenTheChildGoes() async throws {
        let child = try ChildProcess(["sh", "-c", "echo ready; exec sleep 300"])
        #expect(try await child.nextLine(timeout: .hangGuard) == "ready")
        child.send(Data(repeating: 0x61, count: 1 << 20), closingInput: false)
        #expect(child.isInputOpen)
        child.kill()
        #expect(await child.termination() == .signalled(SIGKILL))
        #expect(await eventually { !child.isInputOpen })
    }

    /// The child exits while a process it started keeps its stdin open and never reads: the writer thread gives up
    /// the data rather than wait for room for good.
    @Test func aWriteWaitingForRoomEndsWhenTheChildIsReapedThoughAnotherProcessHoldsItsInput() async throws {
        let child = try ChildProcess(["sh", "-c", "exec 3<&0; sleep 300 <&3 3<&- & echo $!; exit 0"])
        let orphan = try #require(try await child.nextLine(timeout: .hangGuard).flatMap { pid_t($0) })
        defer { Glibc.kill(orphan, SIGKILL) }
        #expect(await child.termination() == .exited(0))
        child.send(Data(repeating: 0x61, count: 1 << 20), closingInput: false)
        #expect(await eventually { !child.isInputOpen })
    }

    @Test func withoutADeadlineTheNextLineIsAwaitedUntilItComes() async throws {
        let child = try ChildProcess(["sh", "-c", "read line; echo \"got $line\""])
        async let line = child.nextLine(timeout: nil)
        child.send(line: "late")
        #expect(try await line == "got late")
        #expect(try await child.nextLine(timeout: nil) == nil)
    }

    @Test func stoppingAChildThatObeysTerminationEndsItWithTheSignal() async throws {
        let child = try ChildProcess(["sleep", "300"], discardingInput: true)
        #expect(await child.stop(grace: .hangGuard) == .signalled(SIGTERM))
    }

    @Test func stoppingAChildThatIgnoresTerminationKillsItAfterTheGrace() async throws {
        let child = try ChildProcess(["sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"], discardingInput: true)
        #expect(try await child.nextLine(timeout: .hangGuard) == "ready")
        #expect(await child.stop(grace: .milliseconds(100)) == .signalled(SIGKILL))
    }
}
