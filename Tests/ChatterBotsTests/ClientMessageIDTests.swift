import Foundation
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
        // Fixed forever: a change would make re-handled messages after an upgrade produce second replies.
        // uuid.uuid5(UUID("cfe2d959-6e3c-41fe-afca-6db79a19d8cc"), "01JBOT\nmessage:01JMSG\n0") in Python.
        #expect(ClientMessageID.derived(bot: "01JBOT", handling: "01JMSG", index: 0).rawValue == "92e9a36f-e3e0-5996-91cd-166833cccee7")
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
}
