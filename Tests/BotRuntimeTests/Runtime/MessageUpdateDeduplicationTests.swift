@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Which `message.updated` frames run the handlers, when messages carry no version number.
@Suite struct MessageUpdateDeduplicationTests {
    /// The bot's "hi" in a state with these reactions by ana.
    static func state(_ emojis: String...) -> Message {
        Message(
            id: "01JFMESSAGE0000000000000001", conversationId: "01JECONVERSATION0000000001", seq: 4, senderId: "01JCUSER00000000000000001",
            clientMessageId: nil, kind: .text, body: "hi",
            reactions: emojis.map { Message.Reaction(emoji: $0, userIds: ["01JCUSER00000000000000002"]) },
            createdAt: Timestamp(Date(timeIntervalSince1970: 1_800_000_000)))
    }

    static let thumbsUp = MessageUpdateFingerprint(state("👍"))
    static let none = MessageUpdateFingerprint(state())

    /// 👍 added, then taken off: the updates handled so far.
    static let addedThenRemoved = HandledMessageUpdates()
        .recording(thumbsUp, version: MessageVersion(state("👍"))).recording(none, version: MessageVersion(state()))

    @Test func aStateNotHandledBeforeIsHandledWithoutAskingTheService() {
        let deduplication = MessageUpdateDeduplication(update: MessageUpdateFingerprint(Self.state("🎉")), handled: Self.addedThenRemoved)
        #expect(deduplication.decision == .handle)
    }

    @Test func theStateTheLastHandledUpdateLeftIsACopyAndSkippedWithoutAskingTheService() {
        let deduplication = MessageUpdateDeduplication(update: Self.none, handled: Self.addedThenRemoved)
        #expect(deduplication.decision == .skip)
        #expect(deduplication.decision(givenCurrent: .unknown) == .skip)
    }

    @Test func anOlderHandledStateIsSettledByAskingTheService() {
        #expect(MessageUpdateDeduplication(update: Self.thumbsUp, handled: Self.addedThenRemoved).decision == .askService)
    }

    @Test func anOlderHandledStateTheMessageIsInNowIsAReturnAndHandled() {
        let deduplication = MessageUpdateDeduplication(update: Self.thumbsUp, handled: Self.addedThenRemoved)
        #expect(deduplication.decision(givenCurrent: .known(Self.thumbsUp)) == .handle)
    }

    @Test func anOlderHandledStateTheMessageHasLeftIsALateCopyAndSkipped() {
        let deduplication = MessageUpdateDeduplication(update: Self.thumbsUp, handled: Self.addedThenRemoved)
        #expect(deduplication.decision(givenCurrent: .known(Self.none)) == .skip)
        #expect(deduplication.decision(givenCurrent: .known(MessageUpdateFingerprint(Self.state("🎉")))) == .skip)
    }

    @Test func anOlderHandledStateIsHandledWhenTheServiceCannotSayWhereTheMessageIs() {
        let deduplication = MessageUpdateDeduplication(update: Self.thumbsUp, handled: Self.addedThenRemoved)
        #expect(deduplication.decision(givenCurrent: .unknown) == .handle)
    }

    @Test func theFirstUpdateOfAMessageIsHandled() {
        #expect(MessageUpdateDeduplication(update: Self.thumbsUp, handled: HandledMessageUpdates()).decision == .handle)
    }

    @Test func aStateHandledAgainIsTheLastOneAfterwards() {
        let returned = Self.addedThenRemoved.recording(Self.thumbsUp, version: MessageVersion(Self.state("👍")))
        #expect(MessageUpdateDeduplication(update: Self.thumbsUp, handled: returned).decision == .skip)
        #expect(MessageUpdateDeduplication(update: Self.none, handled: returned).decision == .askService)
    }

    @Test func eachHandlingOfAStateDerivesItsSendsFromAKeyOfItsOwn() {
        let first = HandledMessageUpdates()
        let second = Self.addedThenRemoved
        let message = Self.state("👍").id
        #expect(first.nextHandling == 1)
        #expect(second.nextHandling == 3)
        #expect(Self.thumbsUp.derivationKey(of: message, handling: first.nextHandling)
            != Self.thumbsUp.derivationKey(of: message, handling: second.nextHandling))
    }
}
