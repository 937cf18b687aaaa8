import ChatterBots
import Foundation
import Testing

@testable import ChatterSandbox

@Suite("Presence: online while a socket is open, offline 10 s after the last one closed")
struct PresenceTrackerTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let ana: User.ID = "01JBANA0000000000000000000"
    let ben: User.ID = "01JBBEN0000000000000000000"

    @Test func theFirstSocketBringsTheUserOnlineAndASecondChangesNothing() {
        var presence = PresenceTracker(gracePeriod: .seconds(10))
        #expect(!presence.isOnline(ana))
        let first = presence.socketOpened(by: ana)
        let second = presence.socketOpened(by: ana)
        #expect(first)
        #expect(!second)
        #expect(presence.isOnline(ana))
    }

    @Test func closingOneOfTwoSocketsKeepsTheUserOnlineWithoutATimer() {
        var presence = PresenceTracker()
        _ = presence.socketOpened(by: ana)
        _ = presence.socketOpened(by: ana)
        #expect(presence.socketClosed(by: ana, at: t0) == nil)
        #expect(presence.nextDeadline == nil)
        #expect(presence.isOnline(ana))
    }

    @Test func theLastSocketClosingGoesOfflineAfterTheGracePeriodWithLastSeenAtTheClose() {
        var presence = PresenceTracker(gracePeriod: .seconds(10))
        _ = presence.socketOpened(by: ana)
        #expect(presence.socketClosed(by: ana, at: t0) == t0.addingTimeInterval(10))
        #expect(presence.isOnline(ana))
        #expect(presence.expire(at: t0.addingTimeInterval(9.999)).isEmpty)
        #expect(presence.expire(at: t0.addingTimeInterval(10)) == [.init(userId: ana, lastSeenAt: t0)])
        #expect(!presence.isOnline(ana))
        #expect(presence.expire(at: t0.addingTimeInterval(20)).isEmpty)
    }

    @Test func aReconnectWithinTheGracePeriodIsAbsorbed() {
        var presence = PresenceTracker(gracePeriod: .seconds(10))
        _ = presence.socketOpened(by: ana)
        _ = presence.socketClosed(by: ana, at: t0)
        let cameOnline = presence.socketOpened(by: ana)
        #expect(!cameOnline, "a reconnect within the grace period is not a new online")
        #expect(presence.nextDeadline == nil)
        #expect(presence.expire(at: t0.addingTimeInterval(60)).isEmpty)
        #expect(presence.isOnline(ana))
    }

    @Test func aReconnectAfterTheGracePeriodIsOnlineAgain() {
        var presence = PresenceTracker(gracePeriod: .seconds(10))
        _ = presence.socketOpened(by: ana)
        _ = presence.socketClosed(by: ana, at: t0)
        _ = presence.expire(at: t0.addingTimeInterval(10))
        let cameOnline = presence.socketOpened(by: ana)
        #expect(cameOnline)
    }

    @Test func usersExpireInTheOrderTheyLeft() {
        var presence = PresenceTracker(gracePeriod: .seconds(10))
        _ = presence.socketOpened(by: ana)
        _ = presence.socketOpened(by: ben)
        _ = presence.socketClosed(by: ben, at: t0)
        _ = presence.socketClosed(by: ana, at: t0.addingTimeInterval(2))
        #expect(presence.nextDeadline == t0.addingTimeInterval(10))
        #expect(presence.expire(at: t0.addingTimeInterval(30)).map(\.userId) == [ben, ana])
    }

    @Test func aCloseWithoutAnOpenSocketIsIgnored() {
        var presence = PresenceTracker()
        #expect(presence.socketClosed(by: ana, at: t0) == nil)
        #expect(!presence.isOnline(ana))
    }
}
