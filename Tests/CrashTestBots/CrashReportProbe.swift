import BotRuntime
import Foundation
import Glibc

/// `CrashTestBots crash-report-probe <directory> <mode>`: a process that opens two in-flight tables in turn, as two
/// `run`s in one process do, closes the second (bot `closed` running), and traps, for the tests of the crash report.
///
/// It installs a SIGILL handler of its own, standing in for Swift's backtracer or a library's handler, which writes
/// ``earlierHandlerLine``. The first table has bot `kept` running `onMessage`.
enum CrashReportProbe {
    enum Mode: String {
        /// The first table stays open; the probe's handler is installed after it, over the report's, and before the
        /// second.
        case kept
        /// Both tables are closed before the trap; the probe's handler is installed before them.
        case none
    }

    static let earlierHandlerLine: StaticString = "crash-report-probe: the handler installed before ran\n"

    static func run(directory: String, mode: Mode) -> Never {
        if mode == .none { installHandler() }
        let root = URL(fileURLWithPath: directory)
        do {
            var kept: InFlightTable? = try table(in: root.appendingPathComponent("kept"), running: "kept")
            if mode == .kept { installHandler() }
            try closeAfterUse(root.appendingPathComponent("closed"))
            if mode == .none { kept = nil }
            withExtendedLifetime(kept) {
                fatalError("crash-report-probe: trapping on purpose")
            }
        } catch {
            FileHandle.standardError.write(Data("crash-report-probe: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Like Swift's backtracer, the handler ends the process: it restores the default action, so the trap raised
    /// again when it returns kills the process if nothing else does.
    private static func installHandler() {
        signal(SIGILL) { _ in
            _ = write(2, CrashReportProbe.earlierHandlerLine.utf8Start, CrashReportProbe.earlierHandlerLine.utf8CodeUnitCount)
            signal(SIGILL, SIG_DFL)
        }
    }

    /// A table of `directory` in the crash report, with `bot` running `onMessage`.
    private static func table(in directory: URL, running bot: String) throws -> InFlightTable {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let table = try InFlightTable(directory: directory)
        guard table.installCrashReport() else { throw ProbeError.reportFull }
        _ = table.claim(.init(bot: bot, handler: "onMessage", trace: "t-\(bot)", key: "message:\(bot)", summary: "",
            startedAt: Date()))
        return table
    }

    /// Opens a table with bot `closed` running, and lets it go.
    private static func closeAfterUse(_ directory: URL) throws {
        _ = try table(in: directory, running: "closed")
    }

    enum ProbeError: Error {
        case reportFull
    }
}
