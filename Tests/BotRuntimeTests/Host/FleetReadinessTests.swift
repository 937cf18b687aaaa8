@testable import BotRuntime
import Foundation
import Testing

/// The rule of `/readyz`: ready once every bot of the start has been live, then until a shutdown.
@Suite("fleet readiness")
struct FleetReadinessTests {
    /// When the process started.
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func seconds(_ count: Double) -> Date { start.addingTimeInterval(count) }

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
        let verdict = readiness.verdict(shuttingDown: false, at: start)
        #expect(!verdict.isReady)
        #expect(verdict.waitingFor.names == ["b"])
        #expect(verdict.text == "not ready: waiting for 1 bot(s) to start: b\n")
    }

    @Test func aBotAReloadAddedIsReportedButNotWaitedFor() {
        var readiness = readiness(["a", "added"], added: ["added"])
        readiness.wentLive(0)
        let verdict = readiness.verdict(shuttingDown: false, at: start)
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor.names == ["added"])
        #expect(verdict.text == "ready\nnot live yet, not waited for: 1 bot(s): added\n")
    }

    @Test func aBotThatStoppedOnItsOwnIsReportedButNotWaitedFor() {
        var readiness = readiness(["a", "bad"])
        readiness.wentLive(0)
        readiness.stopped(1)
        let verdict = readiness.verdict(shuttingDown: false, at: start)
        #expect(verdict.isReady)
        #expect(verdict.stopped.names == ["bad"])
        #expect(verdict.text.contains("stopped on their own, not waited for (see /healthz): 1 bot(s): bad"))
    }

    @Test func onceReadyTheProcessStaysReadyAndNamesTheBotsNotLiveYetInConfigurationOrder() {
        var readiness = readiness(["a", "added", "c"], added: ["added"])
        readiness.wentLive(0)
        #expect(!readiness.verdict(shuttingDown: false, at: start).isReady)
        readiness.wentLive(2)
        #expect(readiness.verdict(shuttingDown: false, at: start).isReady)
        readiness.leave(0)
        readiness.join(3, rank: 0, name: "a", isAwaited: false)  // a reload restarted it once it had been live
        let later = readiness.verdict(shuttingDown: false, at: start)
        #expect(later.isReady)
        #expect(later.waitingFor.count == 0)
        #expect(later.notWaitedFor.names == ["a", "added"])
    }

    @Test func onceReadyABotOfTheStartNotLiveYetIsNoLongerWaitedFor() {
        var readiness = readiness(["a", "b"])
        readiness.wentLive(0)
        readiness.leave(1)  // a reload removed it before it went live
        #expect(readiness.verdict(shuttingDown: false, at: start).isReady)
        readiness.join(2, rank: 1, name: "b", isAwaited: true)
        let verdict = readiness.verdict(shuttingDown: false, at: start)
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor.names == ["b"])
    }

    @Test func aShuttingDownProcessIsNotReadyEvenOnceReady() {
        var readiness = readiness(["a"])
        readiness.wentLive(0)
        #expect(readiness.verdict(shuttingDown: false, at: start).isReady)
        let verdict = readiness.verdict(shuttingDown: true, at: start)
        #expect(!verdict.isReady)
        #expect(verdict.text == "not ready: shutting down\n")
    }

    @Test func aProcessWithNoBotIsReady() {
        var readiness = FleetReadiness()
        #expect(readiness.verdict(shuttingDown: false, at: start).isReady)
    }

    @Test func theAnswerNamesTwentyBotsALineAndCountsTheRest() {
        var readiness = readiness((1...25).map { "b\($0)" })
        let verdict = readiness.verdict(shuttingDown: false, at: start)
        #expect(verdict.waitingFor.count == 25)
        #expect(verdict.waitingFor.names.count == 20)
        #expect(verdict.text.hasPrefix("not ready: waiting for 25 bot(s) to start: b1, b2, "))
        #expect(verdict.text.hasSuffix("b20 and 5 more\n"))
    }

    // MARK: A bound on the wait (readinessTimeoutSeconds)

    @Test func withABoundABotOfTheStartNotLiveYetIsWaitedForUntilTheBoundPasses() {
        var readiness = readiness(["a", "never"])
        readiness.waitAtMost(.seconds(300), from: start)
        readiness.wentLive(0)
        let before = readiness.verdict(shuttingDown: false, at: seconds(299.9))
        #expect(!before.isReady)
        #expect(before.text == "not ready: waiting for 1 bot(s) to start: never\n")
    }

    @Test func onceTheBoundHasPassedTheProcessIsReadyAndNamesTheBotsOfTheStartNoLongerWaitedFor() {
        var readiness = readiness(["a", "never", "added"], added: ["added"])
        readiness.waitAtMost(.seconds(300), from: start)
        readiness.wentLive(0)
        let verdict = readiness.verdict(shuttingDown: false, at: seconds(300))
        #expect(verdict.isReady)
        #expect(verdict.waitingFor.count == 0)
        #expect(verdict.notWaitedFor.names == ["never", "added"])
        #expect(verdict.text == "ready\nnot live yet, not waited for: 2 bot(s): never, added\n")
    }

    @Test func withoutABoundTheProcessWaitsForTheBotsOfTheStartForEver() {
        var readiness = readiness(["a", "never"])
        readiness.wentLive(0)
        #expect(!readiness.verdict(shuttingDown: false, at: seconds(10 * 365 * 86_400)).isReady)
    }

    @Test func aBotOfTheStartThatGoesLiveAfterTheBoundLeavesTheProcessReady() {
        var readiness = readiness(["a", "late"])
        readiness.waitAtMost(.seconds(60), from: start)
        readiness.wentLive(0)
        #expect(readiness.verdict(shuttingDown: false, at: seconds(60)).isReady)
        readiness.wentLive(1)
        let verdict = readiness.verdict(shuttingDown: false, at: seconds(61))
        #expect(verdict.isReady)
        #expect(verdict.text == "ready\n")
    }

    @Test func onceTheBoundHasPassedABotOfTheStartThatAReloadRestartsIsNotWaitedFor() {
        var readiness = readiness(["a", "never"])
        readiness.waitAtMost(.seconds(60), from: start)
        readiness.wentLive(0)
        #expect(readiness.verdict(shuttingDown: false, at: seconds(60)).isReady)
        readiness.leave(1)
        readiness.join(2, rank: 1, name: "never", isAwaited: true)  // never live, so its successor is awaited
        let verdict = readiness.verdict(shuttingDown: false, at: seconds(61))
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor.names == ["never"])
    }

    @Test func aShuttingDownProcessIsNotReadyOnceTheBoundHasPassed() {
        var readiness = readiness(["never"])
        readiness.waitAtMost(.seconds(60), from: start)
        #expect(readiness.verdict(shuttingDown: false, at: seconds(60)).isReady)
        let verdict = readiness.verdict(shuttingDown: true, at: seconds(61))
        #expect(!verdict.isReady)
        #expect(verdict.text == "not ready: shutting down\n")
    }

    @Test func aBoundThatPassesDuringAShutdownDoesNotMakeTheProcessReady() {
        var readiness = readiness(["never"])
        readiness.waitAtMost(.seconds(60), from: start)
        #expect(!readiness.verdict(shuttingDown: true, at: seconds(60)).isReady)
        #expect(readiness.endWait(at: seconds(60), shuttingDown: true) == nil)
    }

    @Test func theEndOfTheWaitNamesTheBotsNoLongerWaitedForOnceEvenAfterAProbeSawIt() {
        var readiness = readiness(["a", "never"])
        readiness.waitAtMost(.seconds(60), from: start)
        readiness.wentLive(0)
        #expect(readiness.verdict(shuttingDown: false, at: seconds(60)).isReady)
        #expect(readiness.endWait(at: seconds(60), shuttingDown: false)?.names == ["never"])
        #expect(readiness.endWait(at: seconds(61), shuttingDown: false) == nil)
    }

    @Test func theEndOfTheWaitNamesNoBotWhenEveryBotOfTheStartHadBeenLive() {
        var readiness = readiness(["a", "b"])
        readiness.waitAtMost(.seconds(60), from: start)
        readiness.wentLive(0)
        readiness.wentLive(1)
        #expect(readiness.verdict(shuttingDown: false, at: seconds(1)).isReady)
        readiness.leave(1)
        readiness.join(2, rank: 1, name: "b", isAwaited: true)
        #expect(readiness.endWait(at: seconds(60), shuttingDown: false) == nil)
    }

    @Test func theBotsNoLongerWaitedForAreNamedTwentyALineAndCounted() {
        var readiness = readiness((1...25).map { "b\($0)" })
        readiness.waitAtMost(.seconds(60), from: start)
        let verdict = readiness.verdict(shuttingDown: false, at: seconds(60))
        #expect(verdict.isReady)
        #expect(verdict.notWaitedFor.count == 25)
        #expect(verdict.text.hasPrefix("ready\nnot live yet, not waited for: 25 bot(s): b1, b2, "))
        #expect(verdict.text.hasSuffix("b20 and 5 more\n"))
        #expect(readiness.endWait(at: seconds(60), shuttingDown: false)?.joined().hasSuffix("b20 and 5 more") == true)
    }
}
