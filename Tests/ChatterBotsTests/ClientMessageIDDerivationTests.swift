import Foundation
import TestSupport
import Testing

@testable import ChatterBots

@Suite("Client message id derivation")
struct ClientMessageIDDerivationTests {
    let cutover: UInt64 = 1_800_000_000_000

    @Test func messagesFromTheCutoverOnGetTimeOrderedKeys() {
        let derivation = ClientMessageIDDerivation(timeOrderedSinceMilliseconds: Int64(cutover))
        for time in [cutover, cutover + 1] {
            let message = Message.ID(ulid(milliseconds: time))
            #expect(derivation.key(bot: "b1", handling: message, index: 1) == .derived(bot: "b1", handling: message, index: 1))
            #expect(derivation.key(bot: "b1", handling: message, index: 1).rawValue.dropFirst(14).first == "8")
        }
    }

    @Test func messagesBeforeTheCutoverGetNameBasedKeys() {
        let derivation = ClientMessageIDDerivation(timeOrderedSinceMilliseconds: Int64(cutover))
        let message = Message.ID(ulid(milliseconds: cutover - 1))
        #expect(derivation.key(bot: "b1", handling: message, index: 1)
            == .nameBased(bot: "b1", trigger: "message:\(message.rawValue)", index: 1))
    }

    @Test func theTimeOrderedDerivationIsTheOneDerivedKeysUse() {
        let message = Message.ID(ulid(milliseconds: 1))
        #expect(ClientMessageIDDerivation.timeOrdered.timeOrderedSince == Date(timeIntervalSince1970: 0))
        #expect(ClientMessageIDDerivation.timeOrdered.key(bot: "b1", handling: message, index: 0) == .derived(bot: "b1", handling: message, index: 0))
    }

    @Test func theNameBasedDerivationGivesNameBasedKeysToEveryMessage() {
        let message = Message.ID(ulid(milliseconds: 281_474_976_710_655))  // the largest 48-bit time
        #expect(ClientMessageIDDerivation.nameBased.key(bot: "b1", handling: message, index: 0)
            == .nameBased(bot: "b1", trigger: "message:\(message.rawValue)", index: 0))
    }

    @Test func triggersNamingNoMessageGetNameBasedKeysWhateverTheCutover() {
        for derivation in [ClientMessageIDDerivation.timeOrdered, .nameBased, ClientMessageIDDerivation(timeOrderedSinceMilliseconds: Int64(cutover))] {
            #expect(derivation.key(bot: "b1", trigger: "job:j1@3", index: 0) == .nameBased(bot: "b1", trigger: "job:j1@3", index: 0))
        }
    }
}
