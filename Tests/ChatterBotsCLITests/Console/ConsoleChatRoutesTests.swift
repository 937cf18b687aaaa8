@testable import ChatterBotsCLI
import BotRuntime
import ChatterBots
import Foundation
import Testing
import ChildProcesses
import TestSupport
import WebSocket
import ChatterSandbox

/// The chat routes' refusals, without a sandbox: the browser tests drive a real chat.
@Suite("the console's chat routes")
struct ConsoleChatRoutesTests {
    let routes = ConsoleChatRoutes(
        server: ChatterServerConfiguration(
            apiBaseURL: URL(fileURLWithPath: "/unused"), webSocketURL: URL(fileURLWithPath: "/unused"), clientKey: "unused"),
        accounts: [.alice, .bob], dataDirectory: nil, restRequestTimeouts: .hangGuard,
        bots: [ConsoleChatRoutes.Bot(name: "echo", username: "echo_bot")])

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

    @Test func aLineCarriesNoBidirectionalOverrideOfItsSender() {
        let object = ConsoleChatRoutes.lineObject(ScreenLine("[14:03] bob: \u{202E}ecila", tone: .message))
        #expect(object["text"] as? String == "[14:03] bob: ?ecila")
    }

    @Test func typingNeedsAYesOrNoAndAnOpenChat() async throws {
        let bad = try await response(.post, "/console/chat/typing", body: #"{"as":"alice","typing":"yes"}"#)
        #expect(bad.status == 400)
        #expect(bad.text.contains("false once cleared"))
        #expect(try await response(.post, "/console/chat/typing", body: #"{"as":"alice","typing":true}"#).status == 409)
        #expect(try await response(.get, "/console/chat/typing").status == 405)
    }

    @Test func aLineOfTheServicesLongestMessageIsTakenAndALongerOneRefused() async throws {
        let longest = String(repeating: "é", count: ChatScreen.maximumBodyLength)
        #expect(try await response(.post, "/console/chat/say", body: #"{"as":"alice","line":"\#(longest)"}"#).status == 409)
        let longer = try await response(.post, "/console/chat/say", body: #"{"as":"alice","line":"\#(longest)é"}"#)
        #expect(longer.status == 400)
        #expect(longer.text.contains("at most 4096 characters"))
    }

    @Test func aChatThatEndsSaysSoOnItsStreamSoThatThePageDoesNotReconnect() async throws {
        let server = try await HTTPServer.start(host: "127.0.0.1", port: 0) { [routes] in await routes.respond(to: $0) }
        let curl = try ChildProcess(
            ["curl", "-sN", "http://127.0.0.1:\(server.port)/console/chat/events?as=alice"], mergingStandardError: true)
        var events: [String] = []
        while let line = try await curl.nextLine(timeout: .hangGuard) {
            if line.hasPrefix("event: ") { events.append(String(line.dropFirst("event: ".count))) }
        }
        _ = await curl.termination()
        #expect(events.first == "ready")
        #expect(events.last == "ended", "the client could not sign in (no server) and ended")
        await server.shutdown()
    }

    @Test func theChatOnThePagesStreamNamesItsEventsAfterItsPartAndSaysWhenItEnds() async throws {
        let console = ConsoleRoutes(
            supervisor: nil, access: ConsoleAccess(control: ControlAccess(token: nil)), bind: "127.0.0.1", extensions: [routes])
        let server = try await HTTPServer.start(host: "127.0.0.1", port: 0) { await console.respond(to: $0) }
        console.serve(onPort: server.port)
        let curl = try ChildProcess(["curl", "-sN", "http://127.0.0.1:\(server.port)/console/stream"], mergingStandardError: true)
        var id: String?
        while id == nil, let line = try await curl.nextLine(timeout: .hangGuard) {
            guard line.hasPrefix("data: ") else { continue }
            id = (try JSONSerialization.jsonObject(with: Data(line.dropFirst("data: ".count).utf8)) as? [String: String])?["stream"]
        }
        let host = "127.0.0.1:\(server.port)"
        let chosen = try await HTTPClient(configuration: .patient).send(
            HTTPRequest(
                method: .post, target: "/console/stream",
                headers: ["Host": host, "Origin": "http://\(host)", "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json"],
                body: Array(#"{"stream": "\#(try #require(id))", "chat": {"as": "alice"}}"#.utf8)),
            to: HTTPOrigin(isSecure: false, host: "127.0.0.1", port: server.port), timeout: .hangGuard)
        #expect(chosen.status == .noContent)
        var events: [String] = []
        while events.last != "chat-ended", let line = try await curl.nextLine(timeout: .hangGuard) {
            if line.hasPrefix("event: ") { events.append(String(line.dropFirst("event: ".count))) }
        }
        curl.kill()
        _ = await curl.termination()
        #expect(events.first == "chat-ready")
        #expect(events.last == "chat-ended", "the client could not sign in (no server) and ended")
        await server.shutdown()
    }

    @Test func theChatPartNeedsATestAccount() {
        let part = ConsoleChatPart(accounts: [.alice, .bob], sessions: routes.sessions)
        #expect(throws: ConsoleInputError.self) { try part.feed(for: ["as": "mallory"]) }
        #expect(throws: ConsoleInputError.self) { try part.feed(for: ["as": "alice", "with": "echo_bot"]) }
        #expect(part.acts, "it signs the test user in")
    }

    @Test func aFileNeedsATestAccountAndAMediaId() async throws {
        #expect(try await response(.get, "/console/chat/media?as=mallory&id=MEDIA-1").status == 400)
        let missing = try await response(.get, "/console/chat/media?as=alice")
        #expect(missing.status == 400)
        #expect(missing.text.contains("media id"))
        #expect(try await response(.get, "/console/chat/media?as=alice&id=..%2F..%2Fetc").status == 400)
        #expect(try await response(.get, "/console/chat/media?as=alice&id=..").status == 400)
        #expect(try await response(.post, "/console/chat/media?as=alice&id=MEDIA-1").status == 405)
    }

    @Test func aPictureIsServedInlineAndAnyOtherFileOnlyAsADownloadNeverAsAPage() async throws {
        let embedded = try await EmbeddedSandbox.start(dataDirectory: nil, port: 0)
        let routes = ConsoleChatRoutes(
            server: embedded.sandbox.serverConfiguration, accounts: embedded.testAccounts, dataDirectory: nil,
            restRequestTimeouts: .hangGuard, bots: [])
        let alice = try #require(embedded.testAccounts.first)
        let client = ChatterRESTClient(configuration: embedded.sandbox.serverConfiguration, requestTimeouts: .hangGuard)
        _ = try await client.login(
            username: alice.username, password: alice.password, deviceId: nil, device: DeviceDescription(name: "t", platform: "t"))
        let picture = try await client.uploadMedia(Data([0x89, 0x50, 0x4E, 0x47]), contentType: "image/png")
        let page = try await client.uploadMedia(Data("<script>alert(1)</script>".utf8), contentType: "application/pdf")
        func fetch(_ id: Media.ID) async throws -> HTTPResponse {
            let answer = await routes.respond(to: HTTPRequest(method: .get, target: "/console/chat/media?as=alice&id=\(id.rawValue)"))
            guard case .response(let response) = answer else { throw ProcessError("expected a plain response") }
            return response
        }
        let inline = try await fetch(picture.mediaId)
        #expect(inline.status == .ok)
        #expect(inline.headers.first(name: "Content-Type") == "image/png")
        #expect(inline.headers.first(name: "Content-Disposition") == nil)
        #expect(inline.body == [0x89, 0x50, 0x4E, 0x47])
        let download = try await fetch(page.mediaId)
        #expect(download.headers.first(name: "Content-Type") == "application/octet-stream")
        #expect(download.headers.first(name: "Content-Disposition")?.hasPrefix("attachment") == true)
        for response in [inline, download] {
            #expect(response.headers.first(name: "Content-Security-Policy") == "default-src 'none'; sandbox")
            #expect(response.headers.first(name: "X-Content-Type-Options") == "nosniff")
        }
        #expect(try await fetch(Media.ID("NOSUCHFILE")).status == .notFound)
        await embedded.shutdown()
    }
}
