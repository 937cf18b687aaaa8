@testable import BotRuntime
import Testing

/// The rule of `/readyz`: ready once every bot of the start has been live, then until a shutdown.
@Suite("fleet readiness")
struct FleetReadinessTests {
    /// Readiness with `names` listed in this order, all bots of the start unless `added`.
    func readiness(_ names: [String], added: Set<String> = []) -> FleetReadiness {
        var readiness = FleetReadiness()
        for (index, name) in names.enumerated() {
            readiness.join(index, rank: index, name: name, isAwaited: !added.contains(name))
        }
        return readiness
    }

    @Test func aBotOfTheStartNotLiveYetKeepsTheProcessUnreadyAndIsNamed() {
        var readiness = readiness(["a", "b"])
        readiness.wentLive(0)
        let verdict = readiness.verdict(shuttingDown: false)
        #expect(!verdict.isReady)
        #expect(verdict.waitingFor.names == ["b"])
        #expect(verdict.text == "not ready: waiting for 1 bot(s) to start: b\n")
    }

    @Test func aBotAReloadAddedIsReportedButNotWaitedFor() {
        var readiness = readiness(["a", "added"], added: ["added"])
        readiness.wentLive(0)
        let verdict = readiness.verdict(shuttingDown: false)
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor.names == ["added"])
        #expect(verdict.text == "ready\nnot live yet, not waited for: 1 bot(s): added\n")
    }

    @Test func aBotThatStoppedOnItsOwnIsReportedButNotWaitedFor() {
        var readiness = readiness(["a", "bad"])
        readiness.wentLive(0)
        readiness.stopped(1)
        let verdict = readiness.verdict(shuttingDown: false)
        #expect(verdict.isReady)
        #expect(verdict.stopped.names == ["bad"])
        #expect(verdict.text.contains("stopped on their own, not waited for (see /healthz): 1 bot(s): bad"))
    }

    @Test func onceReadyTheProcessStaysReadyAndNamesTheBotsNotLiveYetInConfigurationOrder() {
        var readiness = readiness(["a", "added", "c"], added: ["added"])
        readiness.wentLive(0)
        #expect(!readiness.verdict(shuttingDown: false).isReady)
        readiness.wentLive(2)
        #expect(readiness.verdict(shuttingDown: false).isReady)
        readiness.leave(0)
        readiness.join(3, rank: 0, name: "a", isAwaited: false)  // a reload restarted it once it had been live
        let later = readiness.verdict(shuttingDown: false)
        #expect(later.isReady)
        #expect(later.waitingFor.count == 0)
        #expect(later.notWaitedFor.names == ["a", "added"])
    }

    @Test func onceReadyABotOfTheStartNotLiveYetIsNoLongerWaitedFor() {
        var readiness = readiness(["a", "b"])
        readiness.wentLive(0)
        readiness.leave(1)  // a reload removed it before it went live
        #expect(readiness.verdict(shuttingDown: false).isReady)
        readiness.join(2, rank: 1, name: "b", isAwaited: true)
        let verdict = readiness.verdict(shuttingDown: false)
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor.names == ["b"])
    }

    @Test func aShuttingDownProcessIsNotReadyEvenOnceReady() {
        var readiness = readiness(["a"])
        readiness.wentLive(0)
        #expect(readiness.verdict(shuttingDown: false).isReady)
        let verdict = readiness.verdict(shuttingDown: true)
        #expect(!verdict.isReady)
        #expect(verdict.text == "not ready: shutting down\n")
    }

    @Test func aProcessWithNoBotIsReady() {
        var readiness = FleetReadiness()
        #expect(readiness.verdict(shuttingDown: false).isReady)
    }

    @Test func theAnswerNamesTwentyBotsALineAndCountsTheRest() {
        var readiness = readiness((1...25).map { "b\($0)" })
        let verdict = readiness.verdict(shuttingDown: false)
        #expect(verdict.waitingFor.count == 25)
        #expect(verdict.waitingFor.names.count == 20)
        #expect(verdict.text.hasPrefix("not ready: waiting for 25 bot(s) to start: b1, b2, "))
        #expect(verdict.text.hasSuffix("b20 and 5 more\n"))
    }
}
