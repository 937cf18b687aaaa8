import Foundation
import Glibc
import Testing
import TestSupport

/// The crash report of a process that opened more than one in-flight table, as two `run`s in one process do (the
/// tests run many): `CrashTestBots crash-report-probe` opens two tables (bots `kept` and `closed` running), closes
/// the second, and traps, with a SIGILL handler of its own installed before the tables or between them.
@Suite("the crash report with several tables in one process")
struct CrashReportProcessTests {
    static let earlierHandlerLine = "crash-report-probe: the handler installed before ran"
    static let keptReport = "chatterbots: the process died on signal \(SIGILL) while bot kept ran onMessage (trace t-kept, message:kept)"

    /// Runs the probe and returns how it ended and its standard error's lines.
    static func crash(_ mode: String) async throws -> (exit: BotProcess.Exit?, lines: [String]) {
        let directory = try TemporaryDirectory("CrashReportProcessTests")
        let probe = try BotProcess(
            ["crash-report-probe", directory.url.path, mode], in: directory.url, label: "probe",
            executable: "CrashTestBots")
        let exit = await probe.waitForExit(timeout: .hangGuard)
        return (exit, probe.errors.split(separator: "\n").map(String.init))
    }

    /// The probe's handler replaced the report's after the first table; the second table's put the report back.
    @Test func aCrashNamesTheWorkOfTheTableStillOpenAndRunsTheHandlerInstalledBefore() async throws {
        let (exit, lines) = try await Self.crash("kept")
        #expect(exit == .signal(SIGILL), "\(lines)")
        #expect(lines.contains(Self.earlierHandlerLine), "\(lines)")
        #expect(lines.filter { $0 == Self.keptReport }.count == 2, "\(lines)")
        #expect(!lines.contains { $0.contains("bot closed") }, "\(lines)")
    }

    @Test func aCrashAfterEveryTableClosedReportsNoWorkAndRunsTheHandlerInstalledBefore() async throws {
        let (exit, lines) = try await Self.crash("none")
        #expect(exit == .signal(SIGILL), "\(lines)")
        #expect(lines.contains(Self.earlierHandlerLine), "\(lines)")
        #expect(!lines.contains { $0.hasPrefix("chatterbots: the process died") }, "\(lines)")
    }
}
