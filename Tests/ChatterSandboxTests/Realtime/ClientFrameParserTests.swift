import ChatterBots
import Foundation
import Testing
import WebSocket

@testable import ChatterSandbox

@Suite("Client frame rules: JSON text objects with a type, at most 64 KiB")
struct ClientFrameParserTests {
    let parser = ClientFrameParser(maxFrameBytes: 64 * 1024)

    private func rejection(_ text: String) -> (replyTo: String?, error: ChatterErrorBody)? {
        if case .rejected(let replyTo, let error) = parser.parse(.text(text)) { return (replyTo, error) }
        return nil
    }

    @Test func aWellFormedPingIsARequestWithItsID() {
        #expect(parser.parse(.text(#"{"id":"c-1","type":"ping","data":{}}"#)) == .request(ClientFrame(.ping, id: "c-1")))
    }

    @Test func textThatIsNotJSONIsValidationFailedWithoutReplyTo() throws {
        let rejected = try #require(rejection("hello there"))
        #expect(rejected.error.code == .validationFailed)
        #expect(rejected.replyTo == nil)
    }

    @Test func jsonThatIsNotAnObjectIsValidationFailed() throws {
        let rejected = try #require(rejection("[1,2,3]"))
        #expect(rejected.error.code == .validationFailed)
    }

    @Test func aFrameWithoutTypeIsValidationFailedNamingTypeAndRepliesToItsID() throws {
        let rejected = try #require(rejection(#"{"id":"c-7","data":{}}"#))
        #expect(rejected.error.code == .validationFailed)
        #expect(rejected.error.details?["field"] == "type")
        #expect(rejected.replyTo == "c-7")
    }

    @Test func anUnknownClientTypeIsIgnoredAsTheSeedSays() {
        #expect(parser.parse(.text(#"{"id":"c-8","type":"message.explode","data":{"x":1}}"#)) == .ignored(type: "message.explode"))
    }

    @Test func aMalformedDataFieldIsNamedInDetails() throws {
        let rejected = try #require(
            rejection(#"{"id":"c-9","type":"receipt.read","data":{"conversationId":"01JE","seq":"forty"}}"#))
        #expect(rejected.error.code == .validationFailed)
        #expect(rejected.error.details?["field"] == "data.seq")
        #expect(rejected.replyTo == "c-9")
    }

    @Test func aBinaryFrameIsValidationFailed() throws {
        guard case .rejected(_, let error) = parser.parse(.binary([0x7b, 0x7d])) else {
            Issue.record("binary frame accepted")
            return
        }
        #expect(error.code == .validationFailed)
    }

    @Test func exactly64KiBIsAcceptedAndOneByteMoreIsTooLarge() {
        let prefix = #"{"type":"ping","data":{},"pad":""#
        let suffix = #""}"#
        let padding = 64 * 1024 - prefix.utf8.count - suffix.utf8.count
        let atLimit = prefix + String(repeating: "x", count: padding) + suffix
        #expect(parser.parse(.text(atLimit)) == .request(ClientFrame(.ping)))
        let overLimit = prefix + String(repeating: "x", count: padding + 1) + suffix
        #expect(parser.parse(.text(overLimit)) == .tooLarge(byteCount: 64 * 1024 + 1))
    }
}
