import BotRuntime
import Foundation
import Glibc

/// `CrashTestBots crash-report-probe <directory> kept|none`: a process that opens two in-flight tables in turn, as
/// two `run`s in one process do, closes one, and traps, for the tests of the crash report.
///
/// Before the tables it installs a SIGILL handler of its own, standing in for Swift's backtracer, which writes
/// ``earlierHandlerLine``. With `kept`, the first table stays open with bot `kept` running `onMessage`; with `none`,
/// both are closed before the trap. The second table (bot `closed`) is always closed.
enum CrashReportProbe {
    static let earlierHandlerLine = "crash-report-probe: the handler installed before ran"

    static func run(directory: String, keepingOne: Bool) -> Never {
        signal(SIGILL) { _ in
            let line: StaticString = "crash-report-probe: the handler installed before ran\n"
            _ = write(2, line.utf8Start, line.utf8CodeUnitCount)
        }
        let root = URL(fileURLWithPath: directory)
        do {
            var kept: InFlightTable? = try table(in: root.appendingPathComponent("kept"), running: "kept")
            try closeAfterUse(root.appendingPathComponent("closed"))
            if !keepingOne { kept = nil }
            withExtendedLifetime(kept) {
                fatalError("crash-report-probe: trapping on purpose")
            }
        } catch {
            FileHandle.standardError.write(Data("crash-report-probe: \(error)\n".utf8))
            exit(1)
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
