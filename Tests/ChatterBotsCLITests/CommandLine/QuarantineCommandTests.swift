@testable import BotRuntime
import BotRuntimeTestSupport
@testable import ChatterBotsCLI
import Foundation
import Glibc
import TestSupport
import Testing

/// `quarantine list|retry|drop`: on the bots' store files when no `run` answers, through the HTTP port of the one
/// that runs, and never on a store a process that cannot be reached holds.
@Suite("quarantine commands")
struct QuarantineCommandTests {
    func data(_ harness: CommandHarness) -> URL {
        harness.directory.url.appendingPathComponent("data", isDirectory: true)
    }

    /// A configuration of the bots poison and healthy, with poison's store holding "boom" and "kaboom".
    func seededHarness(realSessions: Bool = false, extra: String = "") async throws -> CommandHarness {
        let harness = try CommandHarness(realSessions: realSessions)
        try harness.writeConfiguration(bots: ["poison", "healthy"], extra: extra)
        try FileManager.default.createDirectory(at: data(harness), withIntermediateDirectories: true)
        try await QuarantineSeed.seed(bot: "poison", in: data(harness), texts: ["boom", "kaboom " + String(repeating: "x", count: 80)])
        return harness
    }

    @Test func helpDescribesTheActionsTheIDsAndHowTheProcessIsReached() async throws {
        let harness = try CommandHarness()
        #expect(await harness.run("help", "quarantine") == .success)
        let text = harness.output.text
        #expect(text.contains("USAGE: bots quarantine list [--bot NAME] [--config FILE] [--json]"))
        #expect(text.contains("retry BOT/N"))
        #expect(text.contains("control.json"))
        #expect(text.contains("docs/quarantine.md"))
    }

    @Test func listWithNoRunningProcessPrintsATableOfTheStoresEntries() async throws {
        let harness = try await seededHarness()
        #expect(await harness.run("quarantine", "list") == .success, "\(harness.errors.text)")
        let lines = harness.output.all
        #expect(lines.first == "ID        BOT     HANDLER    LAST ATTEMPT (UTC)   ATTEMPTS  TEXT")
        #expect(lines.dropFirst().first == "poison/1  poison  onMessage  2026-05-28 20:26:40  2         boom")
        #expect(lines.dropFirst(2).first?.hasSuffix("kaboom " + String(repeating: "x", count: 40) + "…") == true)
        #expect(lines.last?.hasPrefix("2 quarantined entries.") == true)
        #expect(harness.errors.all.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: data(harness).appendingPathComponent("healthy.sqlite").path))
    }

    @Test func listOfOneBotOrAsJSONShowsThatBotsEntries() async throws {
        let harness = try await seededHarness()
        #expect(await harness.run("quarantine", "list", "--bot", "healthy") == .success)
        #expect(harness.output.all == ["Nothing is quarantined for healthy."])
        #expect(await harness.run("quarantine", "list", "--bot", "poison", "--json") == .success)
        let json = try #require(harness.output.all.last)
        let listing = try #require(QuarantineJSON.decode(QuarantineJSON.Listing.self, from: Array(json.utf8)))
        #expect(listing.entries.map(\.reference.description) == ["poison/1", "poison/2"])
        #expect(listing.entries.first?.lastStartedAt == QuarantineSeed.lastStartedAt)
    }

    @Test func retryWithNoRunningProcessWaitsForTheBotsNextStart() async throws {
        let harness = try await seededHarness()
        #expect(await harness.run("quarantine", "retry", "poison/1") == .success, "\(harness.errors.text)")
        #expect(harness.output.all == [#"poison/1 (onMessage, "boom") will be retried when poison next starts."#])
        #expect(try await QuarantineSeed.entries(of: "poison", in: data(harness)).map(\.retryRequested) == [true, false])
    }

    @Test func dropWithNoRunningProcessForgetsTheEntry() async throws {
        let harness = try await seededHarness()
        #expect(await harness.run("quarantine", "drop", "poison/2") == .success)
        #expect(harness.output.all == ["Dropped poison/2: it will not be handled."])
        #expect(try await QuarantineSeed.entries(of: "poison", in: data(harness)).map(\.summary) == ["boom"])
    }

    @Test func anUnknownEntryOrBotExitsWith1AndSaysSo() async throws {
        let harness = try await seededHarness()
        #expect(await harness.run("quarantine", "drop", "poison/7") == .failure)
        #expect(await harness.run("quarantine", "retry", "ghost/1") == .failure)
        #expect(harness.errors.all == [
            "bots: poison/7 is not in the quarantine; `quarantine list` shows what is",
            #"bots: no bot named "ghost"; the bots are poison, healthy"#,
        ])
        #expect(try await QuarantineSeed.entries(of: "poison", in: data(harness)).count == 2)
    }

    @Test func aStoreLockedByAProcessThatCannotBeReachedIsLeftAloneWithAdvice() async throws {
        let harness = try await seededHarness()
        let held = try await BotStore.open(path: data(harness).appendingPathComponent("poison.sqlite").path)
        #expect(await harness.run("quarantine", "drop", "poison/1") == .failure)
        let error = try #require(harness.errors.all.first)
        #expect(error.contains(#"the store of bot "poison""#))
        #expect(error.contains("is locked by a running process that cannot be reached over HTTP"))
        #expect(error.contains("set httpPort in bots.json and restart `run`"))
        #expect(try await held.quarantined().count == 2)
        await held.close()
    }

    @Test func aDataDirectoryARunHoldsIsLeftAloneEvenWhileItsStoresAreClosed() async throws {
        let harness = try await seededHarness()
        let run = try InFlightTable(directory: data(harness))
        #expect(await harness.run("quarantine", "list") == .failure)
        #expect(harness.errors.all.first?.contains("a running process uses the data directory \(data(harness).path)") == true)
        #expect(harness.errors.all.first?.contains("set httpPort in bots.json") == true)
        withExtendedLifetime(run) {}
    }

    @Test func aControlFileLeftByADeadProcessIsPassedOver() async throws {
        let harness = try await seededHarness()
        try ControlFile(pid: 999_999, host: "127.0.0.1", httpPort: 1).write(in: data(harness))
        #expect(await harness.run("quarantine", "list", "--json") == .success, "\(harness.errors.text)")
        let listing = try #require(QuarantineJSON.decode(QuarantineJSON.Listing.self, from: Array((harness.output.all.last ?? "").utf8)))
        #expect(listing.entries.count == 2)
    }

    /// A crash leaves control.json behind; another program may listen on its port by now, and must not be sent the
    /// control token.
    @Test func theCommandsSendNothingToThePortOfAControlFileWhoseProcessIsGone() async throws {
        let harness = try await seededHarness()
        let deadPID: Int32 = 999_999
        try #require(kill(deadPID, 0) != 0 && errno == ESRCH)
        let impostor = try SilentListener(port: try FreePort.take())
        try ControlFile(pid: deadPID, host: "127.0.0.1", httpPort: impostor.port).write(in: data(harness))

        #expect(await harness.run("quarantine", "list", "--json") == .success, "\(harness.errors.text)")
        #expect(!impostor.hasPendingConnection(), "the command connected to the impostor")
    }

    /// In a container, process ids are reused soon: a live process with the file's id is the file's only if it
    /// started when the file says.
    @Test func aLiveProcessThatStartedAtAnotherTimeIsNotTheFilesProcess() throws {
        let mine = ControlFile(pid: getpid(), host: "127.0.0.1", httpPort: 1)
        #expect(mine.processStart != nil && mine.processIsAlive)
        var reused = mine
        reused.processStart = (mine.processStart ?? 0) + 1
        #expect(!reused.processIsAlive)
    }

    @Test func theStartTimeIsReadAfterACommandNameWithParenthesesAndSpaces() {
        let stat = "4242 (run (a) b) S 1 4242 4242 0 -1 4194560 2216 0 0 0 9 3 0 0 20 0 5 0 987654 12345678 900"
        #expect(ProcessStat(text: stat)?.field(22) == "987654")
        #expect(ProcessStat(text: stat)?.field(3) == "S" && ProcessStat(text: stat)?.field(14) == "9")
        #expect(ProcessStat(text: "4242 (truncated) S 1")?.field(22) == nil)
    }

    @Test func withARunningProcessTheCommandsGoThroughItsHTTPPort() async throws {
        let harness = try await seededHarness(realSessions: true, extra: #""httpPort": 0,"#)
        let run = Task { await harness.run("run", "--sandbox-port", "0") }
        try await harness.waitUntil("poison live") { harness.errors.text.contains("bot=poison msg=live") }
        let controlURL = data(harness).appendingPathComponent("control.json")
        let control = try #require(ControlFile.read(in: data(harness)))
        #expect(control.pid == getpid())
        #expect(harness.output.text.contains("http://127.0.0.1:\(control.httpPort)/healthz"))
        let mode = try FileManager.default.attributesOfItem(atPath: controlURL.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The run holds the data directory, so only its HTTP port can answer these.
        #expect(await harness.run("quarantine", "list", "--bot", "poison") == .success, "\(harness.errors.text)")
        #expect(harness.output.lines(containing: "poison/2  poison  onMessage").count == 1)
        #expect(await harness.run("quarantine", "drop", "poison/2") == .success)
        #expect(harness.output.all.last == "Dropped poison/2: it will not be handled.")
        #expect(await harness.run("quarantine", "retry", "poison/1") == .success, "\(harness.errors.text)")
        #expect(harness.output.all.last == #"Retrying poison/1 (onMessage, "boom") now: poison is running and its handler has it again."#)
        #expect(await harness.run("quarantine", "drop", "poison/9") == .failure)
        #expect(harness.errors.all.last == "bots: poison/9 is not in the quarantine; `quarantine list` shows what is")
        // The retried entry had no work to run again (an onStart's runs at the next start): it leaves at once.
        try await harness.waitUntil("the retried entry to leave the quarantine") {
            _ = await harness.run("quarantine", "list", "--bot", "poison")
            return harness.output.all.last == "Nothing is quarantined for poison."
        }

        harness.shutdown.request()
        #expect(try await value(of: run, within: .hangGuard, "the command to end") == .success)
        #expect(!FileManager.default.fileExists(atPath: controlURL.path))
        #expect(try await QuarantineSeed.entries(of: "poison", in: data(harness)).isEmpty)
    }
}
