import BotRuntime
import ChatterBots
import Foundation
import Testing

/// The device session: one device for life, tokens rotated, cleared on revocation with the change on record.
@Suite("BotStore session")
struct SessionStoreTests {
    let directory: StoreDirectory
    let clock = ManualClock()

    init() throws {
        directory = try StoreDirectory()
    }

    func session(device: Device.ID = "D_ONE", refresh: String = "r1") -> StoredSession {
        StoredSession(
            userId: Fixture.bot, deviceId: device, accessToken: "a-\(refresh)", refreshToken: refresh,
            accessTokenExpiresAt: Fixture.start.addingTimeInterval(900))
    }

    @Test func aNewStoreHasNoSession() async throws {
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.session() == nil)
        #expect(try await store.devices().isEmpty)
    }

    @Test func aSavedSessionIsLoadedAfterReopening() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.saveSession(session())
        await store.close()
        let reopened = try await openStore(in: directory, clock: clock)
        #expect(try await reopened.session() == session())
    }

    @Test func anAuthSessionIsStoredWithItsExpiryTime() async throws {
        let user = User(id: Fixture.bot, username: "bot", displayName: "Bot", avatarUrl: nil)
        let auth = AuthSession(accessToken: "a", refreshToken: "r", expiresIn: 3600, deviceId: "D_ONE", user: user)
        let stored = StoredSession(auth, receivedAt: Fixture.start)
        #expect(stored.accessTokenExpiresAt == Fixture.start.addingTimeInterval(3600))
        #expect(stored.tokens == SessionTokens(accessToken: "a", refreshToken: "r"))
        #expect(stored.userId == Fixture.bot)
    }

    @Test func rotatedTokensReplaceTheOldOnesOnTheSameDevice() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.saveSession(session(refresh: "r1"))
        try await store.saveSession(session(refresh: "r2"))
        #expect(try await store.session()?.refreshToken == "r2")
        #expect(try await store.devices().map(\.deviceId) == ["D_ONE"])
    }

    @Test func clearingAfterARevocationDeletesTokensAndDeviceAndRecordsTheRevocation() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.saveSession(session())
        await clock.advance(by: .seconds(60))
        let revoked = try await store.clearSession()
        #expect(revoked?.deviceId == "D_ONE")
        #expect(revoked?.revokedAt == Fixture.start.addingTimeInterval(60))
        #expect(try await store.session() == nil)
        // A fresh login creates a new device: both are on record, the old one revoked.
        try await store.saveSession(session(device: "D_TWO", refresh: "r9"))
        let devices = try await store.devices()
        #expect(devices.map(\.deviceId) == ["D_ONE", "D_TWO"])
        #expect(devices[0].revokedAt != nil && devices[1].revokedAt == nil)
    }

    @Test func clearingKeepsTheBotsOtherData() async throws {
        let store = try await openStore(in: directory, clock: clock)
        try await store.saveSession(session())
        try await store.recordConversations([Fixture.conversation()])
        _ = try await store.enqueue(Fixture.send("still to send"))
        try await store.clearSession()
        #expect(try await store.pendingOutbox().count == 1)
        #expect(try await store.syncPositions() == [Fixture.direct: 0])
    }

    @Test func clearingWithoutASessionChangesNothing() async throws {
        let store = try await openStore(in: directory, clock: clock)
        #expect(try await store.clearSession() == nil)
    }
}
