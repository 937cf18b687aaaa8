import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

/// The sandbox as seen by an independent WebSocket implementation (Python `websockets`), so that our client and
/// server cannot agree on a mistake.
@Suite("Realtime conformance with Python websockets")
struct IndependentClientTests {
    @Test func pythonClientGetsReadySnapshotErrorPongAndAckAndOurClientTheMessage() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let ben = try await fixture.connect(fixture.ben)
            let url = fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken).absoluteString
            let lines = try await PythonPeer.run("realtime_peer.py", arguments: ["session", url, chat.rawValue])
            let frames = lines.compactMap { $0["received"] as? [String: Any] }
            #expect(frames.map { $0["type"] as? String } == ["session.ready", "presence.snapshot", "error", "pong", "message.ack"])
            #expect((frames[safe: 2]?["data"] as? [String: Any])?["code"] as? String == "VALIDATION_FAILED")
            #expect(frames[safe: 3]?["replyTo"] as? String == "p-1")
            #expect(frames[safe: 4]?["replyTo"] as? String == "p-2")
            #expect(lines.last?["done"] as? Bool == true)

            let (event, _) = try await ben.next { $0.isMessageNew }
            #expect(event.event.message?.body == "from python")
            await ben.close()
        }
    }

    @Test func pythonClientSeesCode1009ForAFrameOver64KiB() async throws {
        try await SandboxFixture.run { fixture in
            let url = fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken).absoluteString
            let lines = try await PythonPeer.run("realtime_peer.py", arguments: ["oversize", url])
            #expect(lines.last?["closed"] as? Int == 1009)
        }
    }
}

extension IndependentClientTests {
    @Test func aTextFrameThatIsNotUTF8ClosesWith1007AndStoresNothing() async throws {
        try await SandboxFixture.run { fixture in
            let chat = try await fixture.direct(fixture.ana, fixture.ben).id
            let url = fixture.sandbox.webSocketURL(accessToken: fixture.ana.session.accessToken).absoluteString
            let lines = try await PythonPeer.run("realtime_peer.py", arguments: ["invalid-utf8", url, chat.rawValue])
            let types = lines.compactMap { ($0["received"] as? [String: Any])?["type"] as? String }
            #expect(types == ["session.ready", "presence.snapshot"], "no reply to a frame that is not text")
            #expect(lines.last?["closed"] as? Int == Int(WebSocketCloseCode.invalidFramePayloadData.rawValue))
            #expect(try await fixture.rest(fixture.ana).messages(in: chat, afterSeq: 0).messages.isEmpty)
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
