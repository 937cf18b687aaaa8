@testable import BotRuntime
import Foundation
import Testing

@Suite("SendPacer")
struct SendPacerTests {
    let t0 = Date(timeIntervalSince1970: 1_767_225_600)
    func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

    @Test func aFullBurstGoesOutAtOnceThenTheNextWaitsOneInterval() {
        var pacer = SendPacer(configuration: .init(sendsPerSecond: 2, burst: 10))
        for _ in 0..<10 { #expect(pacer.requestSend(now: t0) == .sendNow) }
        #expect(pacer.requestSend(now: t0) == .waitUntil(at(0.5)))
        #expect(pacer.requestSend(now: at(0.5)) == .sendNow)
    }

    @Test func theSustainedRateIsTheConfiguredRate() {
        var pacer = SendPacer(configuration: .init(sendsPerSecond: 3, burst: 5))
        var now = t0
        var sent = 0
        // A sender with an endless queue that sleeps exactly as told, for 60 s.
        while now < at(60) {
            switch pacer.requestSend(now: now) {
            case .sendNow: sent += 1
            case .waitUntil(let next):
                #expect(next > now)
                now = next
            }
        }
        // The burst, then 3 per second; the last refill may land exactly on the 60 s boundary.
        #expect((5 + 179)...(5 + 180) ~= sent)
    }

    @Test func rateLimitingPausesEverySendUntilTheDelayEnds() {
        var pacer = SendPacer()
        pacer.rateLimited(retryAfter: .seconds(30), now: t0)
        #expect(pacer.requestSend(now: t0) == .waitUntil(at(30)))
        #expect(pacer.requestSend(now: at(29.9)) == .waitUntil(at(30)))
        #expect(pacer.requestSend(now: at(30)) == .sendNow)
    }

    @Test func afterAPauseSendingResumesAtTheSustainedRateNotWithABurst() {
        var pacer = SendPacer(configuration: .init(sendsPerSecond: 2, burst: 10))
        pacer.rateLimited(retryAfter: .seconds(30), now: t0)
        #expect(pacer.requestSend(now: at(30)) == .sendNow)
        #expect(pacer.requestSend(now: at(30)) == .waitUntil(at(30.5)))
    }

    @Test func aShorterLaterRateLimitDoesNotShortenThePause() {
        var pacer = SendPacer()
        pacer.rateLimited(retryAfter: .seconds(60), now: t0)
        pacer.rateLimited(retryAfter: .seconds(5), now: at(1))
        #expect(pacer.pausedUntil == at(60))
        #expect(pacer.requestSend(now: at(10)) == .waitUntil(at(60)))
    }

    @Test func theConservativeDefaultIsTwoPerSecondWithABurstOfTen() {
        #expect(SendPacer().configuration == .init(sendsPerSecond: 2, burst: 10))
    }
}
