import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// Presence of realtime-websocket.txt: online while a socket is open, offline 10 s after the last one closes,
/// only between friends and only as privacy allows.
@Suite("Realtime conformance: presence")
struct PresenceConformanceTests {
    @Test func aFriendComingOnlineIsAnnouncedAndGoesOfflineTenSecondsAfterTheLastSocketClosed() async throws {
        try await SandboxFixture.run { fixture in
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await ben.next().event == .presence(Presence(userId: fixture.ana.user.id, isOnline: true)))

            let closedAt = Timestamp(fixture.clock.now)
            await ana.close()
            try await fixture.waitUntilDisconnected(fixture.ana.session.deviceId)
            await fixture.clock.advance(by: .milliseconds(9_999))
            #expect(await fixture.sandbox.hub.isOnline(fixture.ana.user.id), "still online within the grace period")
            await fixture.clock.advance(by: .milliseconds(1))
            let offline = try await ben.next()
            #expect(offline.event == .presence(Presence(userId: fixture.ana.user.id, isOnline: false, lastSeenAt: closedAt)))
            await ben.close()
        }
    }

    @Test func aSecondDeviceKeepsTheUserOnlineWhenTheFirstCloses() async throws {
        try await SandboxFixture.run { fixture in
            let cleo = try await fixture.connect(fixture.cleo)
            let phone = try await fixture.connect(fixture.ana)
            let laptop = try await fixture.connect(try await fixture.signInNewDevice(fixture.ana, name: "laptop"))
            #expect(try await cleo.next().event == .presence(Presence(userId: fixture.ana.user.id, isOnline: true)))
            await phone.close()
            try await fixture.waitUntilDisconnected(fixture.ana.session.deviceId)
            await fixture.clock.advance(by: .seconds(30))
            // dan (cleo's friend) coming online is the next presence cleo may see; an offline for ana would precede it.
            let dan = try await fixture.connect(fixture.dan)
            let (next, skipped) = try await cleo.next { $0.isPresence }
            #expect(next.event == .presence(Presence(userId: fixture.dan.user.id, isOnline: true)))
            #expect(!skipped.contains { $0.event.isPresence })
            #expect(await fixture.sandbox.hub.isOnline(fixture.ana.user.id))
            for client in [cleo, laptop, dan] { await client.close() }
        }
    }

    @Test func aReconnectWithinTheGracePeriodIsAbsorbed() async throws {
        try await SandboxFixture.run { fixture in
            let ben = try await fixture.connect(fixture.ben)
            let first = try await fixture.connect(fixture.ana)
            _ = try await ben.next { $0.isPresence }
            await first.close()
            try await fixture.waitUntilDisconnected(fixture.ana.session.deviceId)
            await fixture.clock.advance(by: .seconds(5))
            let second = try await fixture.connect(fixture.ana)
            await fixture.clock.advance(by: .seconds(20))

            let closedAt = Timestamp(fixture.clock.now)
            await second.close()
            try await fixture.waitUntilDisconnected(fixture.ana.session.deviceId)
            await fixture.clock.advance(by: .seconds(10))
            let (next, _) = try await ben.next { $0.isPresence }
            #expect(
                next.event == .presence(Presence(userId: fixture.ana.user.id, isOnline: false, lastSeenAt: closedAt)),
                "the first presence after the absorbed reconnect is the final offline, not an offline/online pair")
            await ben.close()
        }
    }

    @Test func theSnapshotShowsOnlineFriendsAndTheLastSeenOfOfflineOnes() async throws {
        try await SandboxFixture.run { fixture in
            let cleo = try await fixture.connect(fixture.cleo)
            let ben = try await fixture.connect(fixture.ben)
            let benLeftAt = Timestamp(fixture.clock.now)
            await ben.close()
            try await fixture.waitUntilDisconnected(fixture.ben.session.deviceId)
            await fixture.clock.advance(by: .seconds(10))
            try await fixture.waitUntilOffline(fixture.ben.user.id)

            let (ana, _, snapshot) = try await RealtimeTestClient.signIn(fixture.ana, to: fixture.sandbox)
            #expect(Set(snapshot) == [
                Presence(userId: fixture.cleo.user.id, isOnline: true, lastSeenAt: nil),
                Presence(userId: fixture.ben.user.id, isOnline: false, lastSeenAt: benLeftAt),
            ])
            await ana.close()
            await cleo.close()
        }
    }

    @Test func aNobodyUserComingOnlineAfterTheGracePeriodIsNotAnnounced() async throws {
        try await SandboxFixture.run { fixture in
            let earlier = try await fixture.connect(fixture.nora)
            await earlier.close()
            try await fixture.waitUntilDisconnected(fixture.nora.session.deviceId)
            await fixture.clock.advance(by: .seconds(10))
            try await fixture.waitUntilOffline(fixture.nora.user.id)

            let ben = try await fixture.connect(fixture.ben)
            // nora (ben's friend, privacy nobody) really comes online again: her grace period is over, nothing
            // absorbs it, so only her privacy keeps ben from hearing of it.
            let nora = try await fixture.connect(fixture.nora)
            // ana (ben's friend, privacy everyone) coming online is the next presence ben may see.
            let ana = try await fixture.connect(fixture.ana)
            let (next, skipped) = try await ben.next { $0.isPresence }
            #expect(next.event == .presence(Presence(userId: fixture.ana.user.id, isOnline: true)))
            #expect(!skipped.contains { $0.event.isPresence })
            for client in [ben, nora, ana] { await client.close() }
        }
    }

    @Test func aNobodyUserWhoIsOnlineIsLeftOutOfTheSnapshot() async throws {
        try await SandboxFixture.run { fixture in
            let nora = try await fixture.connect(fixture.nora)
            let (ben, _, snapshot) = try await RealtimeTestClient.signIn(fixture.ben, to: fixture.sandbox)
            #expect(snapshot == [Presence(userId: fixture.ana.user.id, isOnline: false, lastSeenAt: nil)])
            await ben.close()
            await nora.close()
        }
    }

    @Test func turningPrivacyToNobodyWhileOnlineTakesTheUserOfflineForFriendsAndBackWhenAllowedAgain() async throws {
        try await SandboxFixture.run { fixture in
            let ben = try await fixture.connect(fixture.ben)
            let ana = try await fixture.connect(fixture.ana)
            #expect(try await ben.next { $0.isPresence }.frame.event == .presence(Presence(userId: fixture.ana.user.id, isOnline: true)))

            _ = try await fixture.rest(fixture.ana).updateMe(privacy: PrivacySettings(lastSeen: .nobody))
            let hidden = try await ben.next { $0.isPresence }.frame.event
            #expect(hidden == .presence(Presence(userId: fixture.ana.user.id, isOnline: false, lastSeenAt: nil)), "no last seen for nobody")

            _ = try await fixture.rest(fixture.ana).updateMe(privacy: PrivacySettings(lastSeen: .friends))
            #expect(try await ben.next { $0.isPresence }.frame.event == .presence(Presence(userId: fixture.ana.user.id, isOnline: true)))
            _ = try await fixture.rest(fixture.ana).updateMe(privacy: PrivacySettings(lastSeen: .everyone))
            #expect(try await !ben.framesBeforePong().contains { $0.event.isPresence }, "friends to everyone changes nothing friends see")
            await ana.close()
            await ben.close()
        }
    }

    @Test func privacyFriendsSharesPresenceWithFriends() async throws {
        try await SandboxFixture.run { fixture in
            let ana = try await fixture.connect(fixture.ana)
            let cleo = try await fixture.connect(fixture.cleo)
            #expect(try await ana.next().event == .presence(Presence(userId: fixture.cleo.user.id, isOnline: true)))
            await ana.close()
            await cleo.close()
        }
    }

    @Test func presenceGoesOnlyToFriends() async throws {
        try await SandboxFixture.run { fixture in
            // dan is cleo's friend only: ana (not his friend) coming online must not reach him; cleo's must.
            let dan = try await fixture.connect(fixture.dan)
            let ana = try await fixture.connect(fixture.ana)
            let cleo = try await fixture.connect(fixture.cleo)
            let (next, skipped) = try await dan.next { $0.isPresence }
            #expect(next.event == .presence(Presence(userId: fixture.cleo.user.id, isOnline: true)))
            #expect(skipped.isEmpty)
            for client in [dan, ana, cleo] { await client.close() }
        }
    }
}
