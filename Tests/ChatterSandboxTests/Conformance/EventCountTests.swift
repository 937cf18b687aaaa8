@testable import ChatterSandbox
import ChatterBots
import Foundation
import Testing

/// `RealtimeHub.eventsSent(to:)`, which the bot test harness reads to know whether the bot has anything new to
/// read: every event written to a user's sockets counts, replies to the user's own requests do not.
@Suite("Realtime: events counted per user")
struct EventCountTests {
    @Test func eventsToAUsersSocketsCountAndRepliesToItsRequestsDoNot() async throws {
        try await SandboxFixture.run { fixture in
            let hub = fixture.sandbox.hub
            let ben = try await fixture.connect(fixture.ben)
            _ = try await ben.framesBeforePong()
            #expect(await hub.eventsSent(to: fixture.ben.user.id) == 1, "the presence snapshot")

            let ana = try await fixture.connect(fixture.ana)
            #expect(try await ben.next().event == .presence(Presence(userId: fixture.ana.user.id, isOnline: true)))
            #expect(await hub.eventsSent(to: fixture.ben.user.id) == 2)

            let conversation = try await fixture.direct(fixture.ana, fixture.ben)
            let created = try await ben.framesBeforePong().count
            let base = await hub.eventsSent(to: fixture.ben.user.id)
            #expect(base == 2 + created)
            try await fixture.send("hi ana", in: conversation.id, over: ben)
            _ = try await ben.framesBeforePong()
            #expect(await hub.eventsSent(to: fixture.ben.user.id) == base, "the ack and the pong answer ben's requests")

            try await fixture.send("hi ben", in: conversation.id, over: ana)
            _ = try await ben.framesBeforePong()
            #expect(await hub.eventsSent(to: fixture.ben.user.id) == base + 1, "ana's message.new")
            await ana.close()
            await ben.close()
        }
    }
}
