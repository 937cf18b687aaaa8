@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// The bounded record of a message's recently handled updates.
@Suite struct HandledMessageUpdatesTests {
    static func update(_ body: String) -> MessageUpdateFingerprint {
        MessageUpdateFingerprint(Message(
            id: "01JFMESSAGE0000000000000001", conversationId: "01JECONVERSATION0000000001", seq: 1, senderId: "01JCUSER00000000000000001",
            clientMessageId: nil, kind: .text, body: body, createdAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_000)),
            editedAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_100))))
    }

    static let version = MessageVersion(Message(
        id: "01JFMESSAGE0000000000000001", conversationId: "01JECONVERSATION0000000001", seq: 1, senderId: "01JCUSER00000000000000001",
        clientMessageId: nil, kind: .text, body: "edited", createdAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_000)),
        editedAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_100))))

    @Test func theVersionOfTheLastUpdateIsKeptAndReadsBack() throws {
        let handled = HandledMessageUpdates().recording(Self.update("a"), version: Self.version)
        #expect(handled.last == Self.version)
        let data = try JSONEncoder().encode(handled.stored)
        #expect(HandledMessageUpdates(stored: data)?.last?.body == "edited")
    }

    @Test func theDigestListEarlierVersionsStoredIsReadWithoutAVersion() throws {
        let stored = try JSONEncoder().encode([Self.update("a").digest])
        let handled = try #require(HandledMessageUpdates(stored: stored))
        #expect(handled.contains(Self.update("a")))
        #expect(handled.last == nil)
    }

    @Test func anUpdateRecordedBeforeALaterOneIsStillKnown() {
        let handled = HandledMessageUpdates().recording(Self.update("a"), version: Self.version).recording(Self.update("b"), version: Self.version)
        #expect(handled.contains(Self.update("a")))
        #expect(handled.contains(Self.update("b")))
        #expect(!handled.contains(Self.update("c")))
    }

    @Test func onlyTheMostRecentUpdatesAreKept() {
        var handled = HandledMessageUpdates()
        for index in 0...HandledMessageUpdates.capacity { handled = handled.recording(Self.update("edit \(index)"), version: Self.version) }
        #expect(handled.digests.count == HandledMessageUpdates.capacity)
        #expect(!handled.contains(Self.update("edit 0")))
        #expect(handled.contains(Self.update("edit 1")))
        #expect(handled.contains(Self.update("edit \(HandledMessageUpdates.capacity)")))
    }

    @Test func recordingAKnownUpdateAgainMakesItTheNewestWithoutACopy() {
        let handled = HandledMessageUpdates().recording(Self.update("a"), version: Self.version).recording(Self.update("b"), version: Self.version).recording(Self.update("a"), version: Self.version)
        #expect(handled.digests == [Self.update("b").digest, Self.update("a").digest])
    }

    /// Fingerprints are stored and compared across versions: they stay the name-based UUID of the canonical form.
    @Test func aFingerprintIsTheNameBasedUUIDOfTheCanonicalForm() {
        let update = Self.update("a")
        let message: Message.ID = "01JFMESSAGE0000000000000001"
        let canonical = MessageUpdateFingerprint.canonicalForm(of: Message(
            id: message, conversationId: "01JECONVERSATION0000000001", seq: 1, senderId: "01JCUSER00000000000000001",
            clientMessageId: nil, kind: .text, body: "a", createdAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_000)),
            editedAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_100))))
        #expect(update.digest == ClientMessageID.nameBased(bot: User.ID(message.rawValue), trigger: canonical, index: 0).rawValue)
        #expect(update.digest.dropFirst(14).first == "5")
    }

    @Test func theSingleDigestEarlierVersionsStoredIsRead() throws {
        let stored = try JSONEncoder().encode(Self.update("a").digest)
        let handled = try #require(HandledMessageUpdates(stored: stored))
        #expect(handled.contains(Self.update("a")))
    }

    @Test func theStoredFormReadsBack() throws {
        let handled = HandledMessageUpdates().recording(Self.update("a"), version: Self.version).recording(Self.update("b"), version: Self.version)
        let data = try JSONEncoder().encode(handled.stored)
        #expect(HandledMessageUpdates(stored: data) == handled)
        #expect(HandledMessageUpdates(stored: Data("{}".utf8)) == nil)
    }

    @Test func everyHandlingIsCountedBeyondTheDigestsKept() {
        var handled = HandledMessageUpdates()
        for index in 0...HandledMessageUpdates.capacity { handled = handled.recording(Self.update("edit \(index)"), version: Self.version) }
        #expect(handled.count == HandledMessageUpdates.capacity + 1)
        #expect(handled.recording(Self.update("edit 1"), version: Self.version).count == HandledMessageUpdates.capacity + 2)
    }

    @Test func theCountReadsBack() throws {
        let handled = HandledMessageUpdates().recording(Self.update("a"), version: Self.version).recording(Self.update("a"), version: Self.version)
        let data = try JSONEncoder().encode(handled.stored)
        #expect(HandledMessageUpdates(stored: data)?.count == 2)
    }

    /// Records written before the count was kept (digests and the last version) count their digests.
    @Test func aRecordWithoutACountCountsItsDigests() throws {
        let stored = Data(#"{"digests":["x","y"],"last":{"body":"edited","reactions":[]}}"#.utf8)
        let handled = try #require(HandledMessageUpdates(stored: stored))
        #expect(handled.count == 2)
        #expect(handled.lastDigest == "y")
        #expect(handled.last?.body == "edited")
    }
}
