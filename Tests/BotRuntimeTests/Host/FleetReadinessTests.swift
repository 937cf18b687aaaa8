@testable import BotRuntime
import Testing

/// The rule of `/readyz`: ready once every bot of the start has been live, then until a shutdown.
@Suite("fleet readiness")
struct FleetReadinessTests {
    func bot(_ name: String, awaited: Bool = true, live: Bool = false, stopped: Bool = false) -> FleetReadiness.Bot {
        FleetReadiness.Bot(name: name, isAwaited: awaited, hasBeenLive: live, hasStopped: stopped)
    }

    @Test func aBotOfTheStartNotLiveYetKeepsTheProcessUnreadyAndIsNamed() {
        var readiness = FleetReadiness()
        let verdict = readiness.verdict(bots: [bot("a", live: true), bot("b")], shuttingDown: false)
        #expect(!verdict.isReady)
        #expect(verdict.waitingFor == ["b"])
        #expect(verdict.text == "not ready: waiting for 1 bot(s) to start: b\n")
    }

    @Test func aBotAReloadAddedIsReportedButNotWaitedFor() {
        var readiness = FleetReadiness()
        let verdict = readiness.verdict(bots: [bot("a", live: true), bot("added", awaited: false)], shuttingDown: false)
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor == ["added"])
        #expect(verdict.text == "ready\nnot live yet, not waited for: 1 bot(s): added\n")
    }

    @Test func aBotThatStoppedOnItsOwnIsReportedButNotWaitedFor() {
        var readiness = FleetReadiness()
        let verdict = readiness.verdict(bots: [bot("a", live: true), bot("bad", stopped: true)], shuttingDown: false)
        #expect(verdict.isReady)
        #expect(verdict.stopped == ["bad"])
        #expect(verdict.text.contains("stopped on their own, not waited for (see /healthz): 1 bot(s): bad"))
    }

    @Test func onceReadyTheProcessStaysReadyWhenABotOfTheStartIsNotLiveAgain() {
        var readiness = FleetReadiness()
        #expect(readiness.verdict(bots: [bot("a", live: true)], shuttingDown: false).isReady)
        let later = readiness.verdict(bots: [bot("a")], shuttingDown: false)
        #expect(later.isReady)
        #expect(later.waitingFor.isEmpty)
        #expect(later.notWaitedFor == ["a"])
    }

    @Test func aShuttingDownProcessIsNotReadyEvenOnceReady() {
        var readiness = FleetReadiness()
        #expect(readiness.verdict(bots: [bot("a", live: true)], shuttingDown: false).isReady)
        let verdict = readiness.verdict(bots: [bot("a", live: true)], shuttingDown: true)
        #expect(!verdict.isReady)
        #expect(verdict.text == "not ready: shutting down\n")
    }

    @Test func aProcessWithNoBotIsReady() {
        var readiness = FleetReadiness()
        #expect(readiness.verdict(bots: [], shuttingDown: false).isReady)
    }

    @Test func theAnswerNamesTwentyBotsALineAndCountsTheRest() {
        var readiness = FleetReadiness()
        let verdict = readiness.verdict(bots: (1...25).map { bot("b\($0)") }, shuttingDown: false)
        #expect(verdict.waitingFor.count == 25)
        #expect(verdict.text.hasPrefix("not ready: waiting for 25 bot(s) to start: b1, b2, "))
        #expect(verdict.text.hasSuffix("b20 and 5 more\n"))
    }
}
