@testable import BotRuntime
import BotRuntimeTestSupport
import ChatterBots
import Foundation
import TestSupport
import Testing

/// The control routes under /quarantine, served by `HealthServer` for a supervisor of real `BotSession`s that do
/// not run: their quarantines are read and changed in their store files.
@Suite("quarantine control routes over HTTP")
struct QuarantineRoutesTests {
    let directory: TemporaryDirectory
    let supervisor: BotSupervisor
    let server: HealthServer

    init() async throws {
        directory = try TemporaryDirectory("QuarantineRoutesTests")
        try await QuarantineSeed.seed(bot: "poison", in: directory.url, texts: ["boom", "kaboom"])
        try await QuarantineSeed.seed(bot: "other", in: directory.url, texts: ["bang"])
        let environment = BotRuntimeEnvironment(
            server: ChatterServerConfiguration(
                apiBaseURL: URL(fileURLWithPath: "/"), webSocketURL: URL(fileURLWithPath: "/"), clientKey: "unused"),
            dataDirectory: directory.url)
        let sessions = ["poison", "healthy", "other"].map { name in
            BotSession(
                configuration: BotConfiguration(
                    name: name, kind: "greeting", credentials: BotCredentials(username: "\(name)_bot", password: "pw"),
                    friendRequests: .nobody),
                bot: GreetingBot(options: .init(greeting: "hi")), environment: environment)
        }
        supervisor = BotSupervisor(bots: sessions, log: .discarding)
        server = try await HealthServer.start(supervisor: supervisor, port: 0)
    }

    func fetch(_ path: String, method: String = "GET") async throws -> (status: Int, json: [String: Any], headers: [String: String]) {
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)"))
        let response = try await HTTPFetch.get(url, method: method)
        #expect(response.headers["content-type"] == "application/json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        return (response.status, json, response.headers)
    }

    func entries(_ json: [String: Any]) throws -> [[String: Any]] {
        try #require(json["entries"] as? [[String: Any]])
    }

    @Test func listAnswersEveryBotsEntriesWithWhenAndWhyInConfigurationOrder() async throws {
        let (status, json, _) = try await fetch("/quarantine")
        #expect(status == 200)
        let entries = try entries(json)
        #expect(entries.map { "\($0["bot"] ?? "")/\($0["id"] ?? "")" } == ["poison/1", "poison/2", "other/1"])
        let first = try #require(entries.first)
        #expect(first["handler"] as? String == "onMessage")
        #expect(first["trace"] as? String == "trace-poison-1")
        #expect(first["workKey"] as? String == "message:M_poison_1")
        #expect(first["summary"] as? String == "boom")
        #expect(first["attempts"] as? Int == 2)
        #expect(first["lastStartedAt"] as? String == "2026-05-28T20:26:40Z")
        #expect(first["quarantinedAt"] as? String == "2026-05-28T20:27:40Z")
        #expect(first["retryRequested"] as? Bool == false)
        await server.shutdown()
    }

    @Test func listOfOneBotAnswersOnlyItsEntries() async throws {
        let (status, json, _) = try await fetch("/quarantine?bot=other")
        #expect(status == 200)
        #expect(try entries(json).map { $0["summary"] as? String } == ["bang"])
        let healthy = try await fetch("/quarantine?bot=healthy")
        #expect(healthy.status == 200)
        #expect(try entries(healthy.json).isEmpty)
        await server.shutdown()
    }

    @Test func aRetryOfABotThatDoesNotRunWaitsForItsNextStart() async throws {
        let (status, json, _) = try await fetch("/quarantine/poison/2/retry", method: "POST")
        #expect(status == 200)
        #expect(json["runs"] as? String == "nextStart")
        let entry = try #require(json["entry"] as? [String: Any])
        #expect(entry["summary"] as? String == "kaboom")
        #expect(entry["retryRequested"] as? Bool == true)
        let stored = try await QuarantineSeed.entries(of: "poison", in: directory.url)
        #expect(stored.map(\.retryRequested) == [false, true])
        await server.shutdown()
    }

    @Test func aDropForgetsTheEntryAndASecondDropOfItIs404() async throws {
        let (status, json, _) = try await fetch("/quarantine/poison/1/drop", method: "POST")
        #expect(status == 200)
        #expect(json["dropped"] as? Bool == true)
        #expect(try await QuarantineSeed.entries(of: "poison", in: directory.url).map(\.summary) == ["kaboom"])
        let again = try await fetch("/quarantine/poison/1/drop", method: "POST")
        #expect(again.status == 404)
        #expect(again.json["error"] as? String == "poison/1 is not in the quarantine; `quarantine list` shows what is")
        await server.shutdown()
    }

    @Test func anUnknownBotIs404NamingTheBots() async throws {
        for (path, method) in [("/quarantine?bot=ghost", "GET"), ("/quarantine/ghost/1/retry", "POST"), ("/quarantine/ghost/1/drop", "POST")] {
            let (status, json, _) = try await fetch(path, method: method)
            #expect(status == 404)
            #expect(json["error"] as? String == #"no bot named "ghost"; the bots are poison, healthy, other"#)
        }
        await server.shutdown()
    }

    @Test func anUnknownEntryOrRouteIs404() async throws {
        #expect(try await fetch("/quarantine/poison/9/retry", method: "POST").status == 404)
        #expect(try await fetch("/quarantine/poison/1/forget", method: "POST").status == 404)
        #expect(try await fetch("/quarantine/poison", method: "GET").status == 404)
        #expect(try await QuarantineSeed.entries(of: "poison", in: directory.url).count == 2)
        await server.shutdown()
    }

    @Test func anIDThatIsNotAPositiveNumberIs400() async throws {
        for id in ["abc", "0", "-1", "1.5"] {
            let (status, json, _) = try await fetch("/quarantine/poison/\(id)/retry", method: "POST")
            #expect(status == 400, "\(id)")
            #expect((json["error"] as? String)?.contains("is not an entry number") == true)
        }
        await server.shutdown()
    }

    @Test func anotherMethodIs405AndSaysWhichIsAllowed() async throws {
        let retry = try await fetch("/quarantine/poison/1/retry", method: "GET")
        #expect(retry.status == 405)
        #expect(retry.headers["allow"] == "POST")
        let drop = try await fetch("/quarantine/poison/1/drop", method: "DELETE")
        #expect(drop.status == 405)
        let list = try await fetch("/quarantine", method: "POST")
        #expect(list.status == 405)
        #expect(list.headers["allow"] == "GET")
        #expect(try await QuarantineSeed.entries(of: "poison", in: directory.url).map(\.retryRequested) == [false, false])
        await server.shutdown()
    }

    /// A request that comes while another session of the bot claims its store to open it (a reload's, say) waits
    /// for that session; when the claim outlasts the handler timeout, the answer is 503, saying to send it again.
    @Test func aRequestWhileTheBotsStoreIsClaimedPastTheHandlerTimeoutIs503() async throws {
        await server.shutdown()
        let clock = ManualClock()
        let environment = BotRuntimeEnvironment(
            server: ChatterServerConfiguration(
                apiBaseURL: URL(fileURLWithPath: "/"), webSocketURL: URL(fileURLWithPath: "/"), clientKey: "unused"),
            dataDirectory: directory.url, clock: clock)
        let session = BotSession(
            configuration: BotConfiguration(
                name: "poison", kind: "greeting", credentials: BotCredentials(username: "poison_bot", password: "pw"),
                friendRequests: .nobody),
            bot: GreetingBot(options: .init(greeting: "hi")), environment: environment)
        let server = try await HealthServer.start(supervisor: BotSupervisor(bots: [session], log: .discarding), port: 0)
        let path = environment.storeURL(forBot: "poison").path
        await StoreHandOff<BotSession>.shared.claim(path)
        let url = try #require(URL(string: "http://127.0.0.1:\(server.port)/quarantine/poison/1/drop"))
        let drop = Task { try await HTTPFetch.get(url, method: "POST") }
        await StoreHandOff<BotSession>.shared.waitUntilRequestWaits(path)
        await clock.advance(by: environment.handlerTimeout)
        let response = try await drop.value
        StoreHandOff<BotSession>.shared.release(path)

        #expect(response.status == 503)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any])
        #expect(json["error"] as? String == #"bot "poison" has been opening its store for 30.0 seconds (it is starting, "#
            + "or a reload replaces its session): send the request again once the bot is live or stopped")
        #expect(try await QuarantineSeed.entries(of: "poison", in: directory.url).count == 2)
        await server.shutdown()
    }
}
