@testable import BotRuntime
import Foundation
import Testing

@Suite("HeartbeatMonitor")
struct HeartbeatMonitorTests {
    let t0 = Date(timeIntervalSince1970: 1_767_225_600)
    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    func readyMonitor(interval: Duration? = .seconds(25)) -> HeartbeatMonitor {
        var monitor = HeartbeatMonitor()
        _ = monitor.handle(.ready(interval: interval, now: t0))
        return monitor
    }

    @Test func nothingHappensBeforeReady() {
        var monitor = HeartbeatMonitor()
        #expect(monitor.nextDeadline == nil)
        #expect(monitor.handle(.tick(now: at(600))) == [])
    }

    @Test func theFirstPingIsDueOneIntervalAfterReady() {
        var monitor = readyMonitor()
        #expect(monitor.nextDeadline == at(25))
        #expect(monitor.handle(.tick(now: at(24.9))) == [])
        #expect(monitor.handle(.tick(now: at(25))) == [.sendPing])
    }

    @Test func aPingAwaitsItsPongUntilThePongOrTheDeath() {
        var monitor = readyMonitor()
        #expect(!monitor.awaitsPong)
        _ = monitor.handle(.tick(now: at(25)))
        _ = monitor.handle(.pingSent(now: at(25)))
        #expect(monitor.awaitsPong)
        _ = monitor.handle(.pongReceived(now: at(25.1)))
        #expect(!monitor.awaitsPong)
        _ = monitor.handle(.tick(now: at(50)))
        _ = monitor.handle(.pingSent(now: at(50)))
        #expect(monitor.handle(.tick(now: at(60))) == [.connectionDead(pingSentAt: at(50))])
        #expect(!monitor.awaitsPong, "a dead connection waits for nothing")
    }

    @Test func theServersIntervalIsUsed() {
        var monitor = readyMonitor(interval: .milliseconds(15_000))
        #expect(monitor.interval == .seconds(15))
        #expect(monitor.handle(.tick(now: at(15))) == [.sendPing])
    }

    @Test(arguments: [nil, Duration.zero, Duration.seconds(-3)])
    func aMissingOrNonPositiveIntervalFallsBackTo25Seconds(interval: Duration?) {
        let monitor = readyMonitor(interval: interval)
        #expect(monitor.interval == .seconds(25))
        #expect(monitor.nextDeadline == at(25))
    }

    @Test(arguments: [Duration.milliseconds(1), Duration.milliseconds(25), Duration.milliseconds(999)])
    func anIntervalBelowASecondIsRaisedToOne(interval: Duration) {
        let monitor = readyMonitor(interval: interval)
        #expect(monitor.interval == .seconds(1))
        #expect(monitor.nextDeadline == at(1))
    }

    @Test func pingsGoOutEvery25SecondsWhilePongsArrive() {
        var monitor = readyMonitor()
        var pings: [Date] = []
        // Wake exactly at each deadline for 10 minutes; the server answers every ping 0.2 s later.
        while let deadline = monitor.nextDeadline, deadline <= at(600) {
            for action in monitor.handle(.tick(now: deadline)) {
                #expect(action == .sendPing)
                pings.append(deadline)
                _ = monitor.handle(.pingSent(now: deadline))
                _ = monitor.handle(.pongReceived(now: deadline.addingTimeInterval(0.2)))
            }
        }
        #expect(pings == (1...24).map { at(TimeInterval($0) * 25) })
        #expect(!monitor.isDead)
    }

    @Test func aRequestedPingIsNotRequestedAgainBeforeItIsSent() {
        var monitor = readyMonitor()
        #expect(monitor.handle(.tick(now: at(25))) == [.sendPing])
        #expect(monitor.handle(.tick(now: at(26))) == [])
    }

    @Test func noPongWithinTenSecondsOfAPingMeansDead() {
        var monitor = readyMonitor()
        _ = monitor.handle(.tick(now: at(25)))
        _ = monitor.handle(.pingSent(now: at(25)))
        #expect(monitor.nextDeadline == at(35))
        #expect(monitor.handle(.tick(now: at(34.9))) == [])
        #expect(monitor.handle(.tick(now: at(35))) == [.connectionDead(pingSentAt: at(25))])
        #expect(monitor.isDead)
    }

    @Test func aPongInTimeKeepsTheConnectionAlive() {
        var monitor = readyMonitor()
        _ = monitor.handle(.tick(now: at(25)))
        _ = monitor.handle(.pingSent(now: at(25)))
        _ = monitor.handle(.pongReceived(now: at(34.9)))
        #expect(monitor.handle(.tick(now: at(35))) == [])
        #expect(monitor.nextDeadline == at(50))
        #expect(!monitor.isDead)
    }

    @Test func otherIncomingTrafficDoesNotReplaceThePong() {
        var monitor = readyMonitor()
        _ = monitor.handle(.tick(now: at(25)))
        _ = monitor.handle(.pingSent(now: at(25)))
        _ = monitor.handle(.trafficReceived(now: at(30)))
        #expect(monitor.lastReceivedAt == at(30))
        #expect(monitor.handle(.tick(now: at(35))) == [.connectionDead(pingSentAt: at(25))])
    }

    @Test func aDeadMonitorStaysSilentUntilTheNextReady() {
        var monitor = readyMonitor()
        _ = monitor.handle(.tick(now: at(25)))
        _ = monitor.handle(.pingSent(now: at(25)))
        _ = monitor.handle(.tick(now: at(35)))
        #expect(monitor.nextDeadline == nil)
        #expect(monitor.handle(.tick(now: at(100))) == [])
        _ = monitor.handle(.ready(interval: nil, now: at(200)))
        #expect(!monitor.isDead)
        #expect(monitor.nextDeadline == at(225))
    }

    @Test func silenceNearTheServersIdleTimeoutIsReportedOnce() {
        var monitor = readyMonitor()
        #expect(monitor.handle(.tick(now: at(25))) == [.sendPing])
        // The ping never goes out (say the socket's writes are stuck): 50 s of silence, 10 s before the idle close.
        #expect(monitor.nextDeadline == at(50))
        #expect(monitor.handle(.tick(now: at(50))) == [.idleCloseLikely(lastSentAt: t0)])
        #expect(monitor.handle(.tick(now: at(55))) == [])
    }

    @Test func framesWeSendPostponeTheIdleWarning() {
        var monitor = readyMonitor()
        _ = monitor.handle(.tick(now: at(25)))
        _ = monitor.handle(.trafficSent(now: at(40)))
        #expect(monitor.handle(.tick(now: at(50))) == [])
        #expect(monitor.handle(.tick(now: at(90))) == [.idleCloseLikely(lastSentAt: at(40))])
    }
}
