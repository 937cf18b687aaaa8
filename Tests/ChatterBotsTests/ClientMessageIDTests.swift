import Foundation
import TestSupport
import Testing

@testable import ChatterBots

@Suite("Client message ids")
struct ClientMessageIDTests {
    @Test func sha1MatchesTheStandardVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA1.hash(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.hash([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
            == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(SHA1.hash(Array("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu".utf8)))
            == "a49b2446a02c645bf419f995b67091253a04a259")
        // The padding's edges: 55 bytes fit one block with the length, 64 need a second.
        #expect(hex(SHA1.hash(Array(repeating: UInt8(ascii: "x"), count: 55))) == "cef734ba81a024479e09eb5a75b6ddae62e6abf1")
        #expect(hex(SHA1.hash(Array(repeating: UInt8(ascii: "x"), count: 64))) == "bb2fa3ee7afb9f54c6dfb5d021f14b1ffe40c163")
    }

    @Test func nameBasedUUIDMatchesRFCVersion5() {
        // uuid.uuid5(uuid.NAMESPACE_DNS, "python.org") in Python.
        let dns: [UInt8] = [0x6b, 0xa7, 0xb8, 0x10, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        #expect(ClientMessageID.nameBasedUUID(namespace: dns, name: "python.org") == "886313e1-3b8a-5372-9b90-0c9aee199e5d")
    }

    @Test func derivedIdsAreStableAcrossRuns() {
        // Both fixed forever: a message handled by one version and handled again by the next (its unit lost in a
        // crash after a reply went out) must get the keys that went out, or the service creates a second reply.
        // The name-based key is what versions before time-ordered keys derived, and stores they wrote keep it for
        // older messages:
        // uuid.uuid5(UUID("cfe2d959-6e3c-41fe-afca-6db79a19d8cc"), "01JBOT\nmessage:01JMSG\n0") in Python.
        #expect(ClientMessageID.nameBased(bot: "01JBOT", trigger: "message:01JMSG", index: 0).rawValue == "92e9a36f-e3e0-5996-91cd-166833cccee7")
        #expect(ClientMessageID.derived(bot: "01JBOT", handling: "01JMSG", index: 0).rawValue == "92e9a36f-e3e0-5996-91cd-166833cccee7")
        // The time-ordered key of a ULID message: since this version, what every new store sends. In Python:
        // the ULID's 48-bit time 01563e3ab5d3 (1469922850259 ms), then the first 10 bytes of
        // sha1(namespace + b"01JBOT\nmessage:01ARZ3NDEKTSV4RRFFQ69G5FAV\n0") with version 8 and variant 10.
        #expect(ClientMessageID.derived(bot: "01JBOT", handling: "01ARZ3NDEKTSV4RRFFQ69G5FAV", index: 0).rawValue
            == "01563e3a-b5d3-86d1-868e-5a936954c219")
    }

    @Test func derivedIdsDifferByBotMessageAndIndex() {
        let ids: Set<ClientMessageID> = [
            .derived(bot: "b1", handling: "m1", index: 0), .derived(bot: "b1", handling: "m1", index: 1),
            .derived(bot: "b1", handling: "m2", index: 0), .derived(bot: "b2", handling: "m1", index: 0),
            .derived(bot: "b1", trigger: "job:j1@2026-10-22T09:00:00.000Z", index: 0),
        ]
        #expect(ids.count == 5)
    }

    @Test func randomIdsAreLowercaseUUIDs() {
        let id = ClientMessageID.random()
        #expect(UUID(uuidString: id.rawValue) != nil && id.rawValue == id.rawValue.lowercased())
        #expect(ClientMessageID.random() != id)
    }

    @Test func randomIdsAreVersion7LedByTheCurrentMilliseconds() throws {
        let before = UInt64(Date().timeIntervalSince1970 * 1000)
        let id = ClientMessageID.random()
        let after = UInt64(Date().timeIntervalSince1970 * 1000)
        #expect(version(of: id) == "7" && hasVariant10(id))
        #expect((before...after).contains(try #require(leadingMilliseconds(of: id))))
    }

    @Test func randomIdsOfLaterMillisecondsSortAfterEarlierOnes() {
        let earlier = ClientMessageID.timeOrderedRandom(milliseconds: 1_800_000_000_000, randomBytes: Array(repeating: 0xff, count: 10))
        let later = ClientMessageID.timeOrderedRandom(milliseconds: 1_800_000_000_001, randomBytes: Array(repeating: 0x00, count: 10))
        #expect(earlier.rawValue < later.rawValue)
        #expect(earlier.rawValue == "01a3185c-5000-7fff-bfff-ffffffffffff")
        #expect(later.rawValue == "01a3185c-5001-7000-8000-000000000000")
    }

    @Test func timeOrderedKeysFollowTheVersion8LayoutLedByTheMessagesTime() throws {
        let id = ClientMessageID.derived(bot: "b1", handling: Message.ID(ulid(milliseconds: 1_800_000_000_123)), index: 0)
        #expect(version(of: id) == "8" && hasVariant10(id))
        #expect(try #require(leadingMilliseconds(of: id)) == 1_800_000_000_123)
    }

    @Test func timeOrderedKeysAreDeterministicAndDifferByBotMessageAndIndex() {
        let message = Message.ID(ulid(milliseconds: 1_800_000_000_000))
        let other = Message.ID(ulid(milliseconds: 1_800_000_000_000, random: "ZZZZZZZZZZZZZZZZ"))
        #expect(ClientMessageID.derived(bot: "b1", handling: message, index: 0) == .derived(bot: "b1", handling: message, index: 0))
        let ids: Set<ClientMessageID> = [
            .derived(bot: "b1", handling: message, index: 0), .derived(bot: "b1", handling: message, index: 1),
            .derived(bot: "b2", handling: message, index: 0), .derived(bot: "b1", handling: other, index: 0),
        ]
        #expect(ids.count == 4)
    }

    @Test func keysOfLaterMessagesSortAfterKeysOfEarlierOnes() {
        let times: [UInt64] = [1_700_000_000_000, 1_700_000_000_001, 1_700_000_060_000, 1_800_000_000_000]
        // Random parts and indices that alone would sort the other way round.
        let keys = times.enumerated().map { offset, time in
            let random = offset.isMultiple(of: 2) ? "ZZZZZZZZZZZZZZZZ" : "0000000000000000"
            return ClientMessageID.derived(bot: "b1", handling: Message.ID(ulid(milliseconds: time, random: random)), index: 5 - offset)
        }
        #expect(keys.map(\.rawValue) == keys.map(\.rawValue).sorted())
    }

    @Test func aLowercaseULIDGivesTheSameTimeAsItsUppercaseForm() throws {
        let upper = ulid(milliseconds: 1_800_000_000_000, random: "ABCDEFGHJKMNPQRS")
        let lower = ClientMessageID.derived(bot: "b1", handling: Message.ID(upper.lowercased()), index: 0)
        #expect(version(of: lower) == "8")
        #expect(try #require(leadingMilliseconds(of: lower)) == 1_800_000_000_000)
    }

    @Test func triggersNamingNoULIDMessageGetTheNameBasedKey() {
        let valid = ulid(milliseconds: 1_800_000_000_000)
        let triggers = [
            "message:m1", "message:01JMSG", "job:j1@1", "friend-added:\(valid)@2026-10-22T09:00:00.000Z", "conversation-created:\(valid)",
            "message:8" + valid.dropFirst(),  // more than 48 bits of time
            "message:" + valid.dropLast() + "U",  // U is not a Crockford digit
            "message:" + valid + "7",  // 27 characters
            "message:" + valid.dropLast(),  // 25 characters
            "message \(valid)", "xmessage:\(valid)",
        ]
        for trigger in triggers {
            #expect(ClientMessageID.derived(bot: "b1", trigger: trigger, index: 2) == .nameBased(bot: "b1", trigger: trigger, index: 2), "\(trigger)")
        }
    }

    @Test func aTriggerContinuingAfterTheULIDUsesTheULIDsTime() throws {
        let message = ulid(milliseconds: 1_800_000_000_000)
        for trigger in ["message-updated:\(message)#5a0f3c1e-0000-5000-8000-000000000000", "message:\(message)#x", "message-updated:\(message)"] {
            let id = ClientMessageID.derived(bot: "b1", trigger: trigger, index: 0)
            #expect(version(of: id) == "8", "\(trigger)")
            #expect(try #require(leadingMilliseconds(of: id)) == 1_800_000_000_000)
        }
    }
}


/// The version digit of a UUID key.
private func version(of id: ClientMessageID) -> Character? {
    id.rawValue.count == 36 ? Array(id.rawValue)[14] : nil
}

/// Whether a UUID key has the RFC 9562 variant (its 17th hex digit is 8, 9, a or b).
private func hasVariant10(_ id: ClientMessageID) -> Bool {
    id.rawValue.count == 36 && "89ab".contains(Array(id.rawValue)[19])
}

/// The 48-bit Unix milliseconds a time-ordered key starts with.
private func leadingMilliseconds(of id: ClientMessageID) -> UInt64? {
    UInt64(id.rawValue.replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)
}
