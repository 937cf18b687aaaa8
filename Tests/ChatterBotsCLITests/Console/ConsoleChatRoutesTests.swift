@testable import ChatterBotsCLI
import ChatterBots
import Foundation
import Testing
import WebSocket

/// The chat routes' refusals, without a sandbox: the browser tests drive a real chat.
@Suite("the console's chat routes")
struct ConsoleChatRoutesTests {
    let routes = ConsoleChatRoutes(
        server: ChatterServerConfiguration(
            apiBaseURL: URL(fileURLWithPath: "/unused"), webSocketURL: URL(fileURLWithPath: "/unused"), clientKey: "unused"),
        accounts: [.alice, .bob], bots: [ConsoleChatRoutes.Bot(name: "echo", username: "echo_bot")])

    func response(_ method: HTTPMethod, _ target: String, body: String = "") async throws -> (status: Int, text: String) {
        let answer = await routes.respond(to: HTTPRequest(method: method, target: target, body: Array(body.utf8)))
        guard case .response(let response) = answer else { throw ProcessError("expected a plain response to \(target)") }
        return (response.status.code, String(decoding: response.body, as: UTF8.self))
    }

    struct ProcessError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func theOfferListsTheTestAccountsAndTheBots() async throws {
        let offer = try await response(.get, "/console/chat")
        #expect(offer.status == 200)
        #expect(offer.text == #"{"accounts":["alice","bob"],"bots":[{"name":"echo","username":"echo_bot"}]}"#)
    }

    @Test func anUnknownAccountIsA400NamingTheTestAccounts() async throws {
        let events = try await response(.get, "/console/chat/events?as=mallory")
        #expect(events.status == 400)
        #expect(events.text.contains("alice, bob"))
        let say = try await response(.post, "/console/chat/say", body: #"{"as":"mallory","line":"hi"}"#)
        #expect(say.status == 400)
    }

    @Test func aLineNeedsTextAndAnOpenChat() async throws {
        #expect(try await response(.post, "/console/chat/say", body: #"{"as":"alice","line":"  "}"#).status == 400)
        #expect(try await response(.post, "/console/chat/say", body: #"{"as":"alice","line":"a\nb"}"#).status == 400)
        let closed = try await response(.post, "/console/chat/say", body: #"{"as":"alice","line":"hello"}"#)
        #expect(closed.status == 409)
        #expect(closed.text.contains("/console/chat/events?as=alice"))
        #expect(try await response(.get, "/console/chat/say").status == 405)
    }

    @Test func aFileNeedsATestAccountAndAMediaId() async throws {
        #expect(try await response(.get, "/console/chat/media?as=mallory&id=MEDIA-1").status == 400)
        let missing = try await response(.get, "/console/chat/media?as=alice")
        #expect(missing.status == 400)
        #expect(missing.text.contains("media id"))
        #expect(try await response(.get, "/console/chat/media?as=alice&id=..%2F..%2Fetc").status == 400)
        #expect(try await response(.post, "/console/chat/media?as=alice&id=MEDIA-1").status == 405)
    }
}
