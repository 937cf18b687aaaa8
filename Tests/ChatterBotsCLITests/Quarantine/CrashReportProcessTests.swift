import Foundation
import Glibc
import Testing
import TestSupport

/// The crash report of a process that opened more than one in-flight table, as two `run`s in one process do (the
/// tests run many): `CrashTestBots crash-report-probe` installs a SIGILL handler of its own first, opens two
/// tables, closes one or both, and traps.
@Suite("the crash report with several tables in one process")
struct CrashReportProcessTests {
    static let earlierHandlerLine = "crash-report-probe: the handler installed before ran"

    /// Runs the probe and returns how it ended and its standard error's lines.
    static func crash(keeping: String) async throws -> (exit: BotProcess.Exit?, lines: [String]) {
        let directory = try TemporaryDirectory("CrashReportProcessTests")
        let probe = try BotProcess(
            ["crash-report-probe", directory.url.path, keeping], in: directory.url, label: "probe",
            executable: "CrashTestBots")
        let exit = await probe.waitForExit(timeout: .seconds(60))
        return (exit, probe.errors.split(separator: "\n").map(String.init))
    }

    @Test func aCrashNamesTheWorkOfTheTableStillOpenAndRunsTheHandlerInstalledBefore() async throws {
        let (exit, lines) = try await Self.crash(keeping: "kept")
        #expect(exit == .signal(SIGILL), "\(lines)")
        #expect(lines.contains(Self.earlierHandlerLine), "\(lines)")
        let report = "chatterbots: the process died on signal \(SIGILL) while bot kept ran onMessage (trace t-kept, message:kept)"
        #expect(lines.filter { $0 == report }.count == 2, "\(lines)")
        #expect(!lines.contains { $0.contains("bot closed") }, "\(lines)")
    }

    @Test func aCrashAfterEveryTableClosedReportsNoWorkAndRunsTheHandlerInstalledBefore() async throws {
        let (exit, lines) = try await Self.crash(keeping: "none")
        #expect(exit == .signal(SIGILL), "\(lines)")
        #expect(lines.contains(Self.earlierHandlerLine), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("chatterbots: the process died") }, "\(lines)")
    }
}
