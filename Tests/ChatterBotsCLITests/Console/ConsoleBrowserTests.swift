import ChildProcesses
import Foundation
import Glibc
import TestSupport
import Testing

/// The web console in a real browser: `example-bots run` with the embedded sandbox and `"console": true`, driven by
/// `Browser/console_browser.py` (Selenium, headless Chromium). Each test keeps its screenshots in
/// `.build/console-screenshots` as an artifact.
@Suite("the web console in headless Chromium", .serialized)
struct ConsoleBrowserTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let screenshots = packageRoot.appendingPathComponent(".build/console-screenshots")
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Browser/console_browser.py")

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `example-bots run` with an echo bot and a reminder bot on the embedded sandbox, the console on.
    struct Fleet {
        let directory: TemporaryDirectory
        let process: BotProcess
        let consoleURL: String
        /// The sandbox's REST base URL, as the process printed it.
        var apiURL: String? {
            let prefixes = ["Chatter sandbox listening on ", "Chatter sandbox: "]
            for line in process.output.split(separator: "\n") {
                for prefix in prefixes where line.hasPrefix(prefix) {
                    return line.dropFirst(prefix.count).split(separator: " ").first.map(String.init)
                }
            }
            return nil
        }

        static func start(token: String? = nil) async throws -> Fleet {
            let directory = try TemporaryDirectory("ConsoleBrowserTests")
            try directory.write("""
                {
                  "server": "sandbox", "dataDirectory": "data", "httpPort": 0, "console": true,
                  "bots": [
                    {"name": "echo", "kind": "echo", "credentials": {"username": "echo_bot", "password": "echo-bot-sandbox"},
                     "friendRequests": "everyone", "options": {"typingSeconds": 0.2}},
                    {"name": "reminders", "kind": "reminders",
                     "credentials": {"username": "reminder_bot", "password": "reminder-bot-sandbox"},
                     "friendRequests": "everyone", "options": {"defaultTimeZone": "UTC"}}
                  ]
                }
                """, to: "bots.json")
            let process = try BotProcess(
                ["run", "--config", "bots.json", "--sandbox-port", "0"], in: directory.url,
                environment: token.map { ["CHATTERBOTS_CONTROL_TOKEN": $0] } ?? [:], label: "run")
            return try await consoleOf(process, in: directory)
        }

        /// `example-bots sandbox` alone, with its console on.
        static func startSandbox() async throws -> Fleet {
            let directory = try TemporaryDirectory("ConsoleBrowserTests")
            let process = try BotProcess(["sandbox", "--port", "0", "--console-port", "0"], in: directory.url, label: "sandbox")
            return try await consoleOf(process, in: directory)
        }

        /// The process once it printed its console's address.
        private static func consoleOf(_ process: BotProcess, in directory: TemporaryDirectory) async throws -> Fleet {
            let found = await eventually(timeout: .hangGuard) { process.output.contains("/console/") || process.hasExited }
            guard found, let line = process.output.split(separator: "\n").first(where: { $0.hasPrefix("Console: ") }) else {
                process.send(SIGKILL)
                throw Failure(description: "printed no console address: \(process.output)\n\(process.errors)")
            }
            return Fleet(directory: directory, process: process, consoleURL: String(line.dropFirst("Console: ".count)))
        }

        func stop() async {
            process.send(SIGTERM)
            _ = await process.waitForExit(timeout: .hangGuard)
        }
    }

    /// Starts a process with `start`, runs the browser's `scenario` on its console, stops the process whatever
    /// happened, and returns what the browser saw.
    func visit(
        _ start: () async throws -> Fleet, _ scenario: String, bots: [String],
        environment: (Fleet) throws -> [String: String] = { _ in [:] }
    ) async throws -> [String: Any] {
        let fleet = try await start()
        let seen: [String: Any]
        do {
            seen = try await browse(fleet, scenario, bots: bots, environment: try environment(fleet))
        } catch {
            await fleet.stop()
            throw error
        }
        await fleet.stop()
        return seen
    }

    /// Runs the browser script's `scenario` and returns the JSON object it printed.
    func browse(_ fleet: Fleet, _ scenario: String, bots: [String], environment: [String: String] = [:]) async throws -> [String: Any] {
        try TestPeer.command("chromium")
        try TestPeer.command("chromedriver", package: "chromium-driver")
        let python = try TestPeer.python(importing: ["selenium"])
        let errors = fleet.directory.url.appendingPathComponent("\(scenario).browser.err")
        let child = try ChildProcess(
            [python, Self.script.path, fleet.consoleURL, scenario, Self.screenshots.path] + bots,
            environment: environment, standardError: .file(errors.path), discardingInput: true)
        let output = try await child.allOutput(timeout: .seconds(180))
        let termination = await child.termination(timeout: .hangGuard)
        guard termination == .exited(0) else {
            let reason = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "the browser's \(scenario) \(termination.map(\.description) ?? "did not exit"): \(reason)"
                + "\nrun's log:\n\(fleet.process.errors.suffix(3000))")
        }
        let text = String(decoding: output, as: UTF8.self)
        guard let line = text.split(separator: "\n").last,
              let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { throw Failure(description: "the browser printed no JSON: \(text)") }
        return object
    }

    @Test(.timeLimit(.minutes(5)))
    func theDashboardListsTheBotsOfBotsJSONAsLive() async throws {
        let seen = try await visit({ try await Fleet.start() }, "dashboard", bots: ["echo", "reminders"])
        #expect(seen["states"] as? [String: String] == ["echo": "live", "reminders": "live"])
        #expect((seen["summary"] as? String)?.contains("2 bots") == true)
        #expect(FileManager.default.fileExists(atPath: Self.screenshots.appendingPathComponent("dashboard.png").path))
    }

    @Test(.timeLimit(.minutes(5)))
    func aNameTypedIntoTheFilterLeavesOnlyTheMatchingBotsRows() async throws {
        let seen = try await visit({ try await Fleet.start() }, "filter", bots: ["reminders", "echo"])
        #expect(seen["rows"] as? [String] == ["reminders"])
        #expect((seen["pageLabel"] as? String)?.contains("1 matching") == true)
    }

    @Test(.timeLimit(.minutes(5)))
    func thePagersLinksTurnThePageInPlaceAndWorkAsPlainLinks() async throws {
        let seen = try await visit({ try await Fleet.start() }, "paging", bots: ["echo", "reminders"])
        #expect((seen["nextLink"] as? String)?.hasSuffix("/console/?page=2&pageSize=1") == true)
        #expect((seen["clicked"] as? String)?.hasSuffix("/console/?page=2&pageSize=1") == true)
        #expect(seen["loaded"] as? [String] == ["reminders"])
        #expect(seen["pageLabel"] as? String == "page 2 of 2 (2 matching)")
        #expect(seen["nextOnLastPage"] is NSNull)
    }

    @Test(.timeLimit(.minutes(5)))
    func aliceAsksTheReminderBotAndItsAnswerAppearsWithAReadMark() async throws {
        let seen = try await visit({ try await Fleet.start() }, "reminder", bots: ["reminder_bot"])
        let lines = try #require(seen["lines"] as? [[String]])
        let own = try #require(lines.firstIndex { $0.first == "tone-own" && $0.last?.contains("remind me in 10 minutes to stretch") == true })
        let answer = try #require(lines.firstIndex { $0.first == "tone-message" && $0.last?.contains("reminder_bot") == true })
        #expect(own < answer)
        #expect(lines.contains { $0.last?.contains("✓✓") == true })
        let trace = try #require(seen["trace"] as? String)
        let records = try #require(seen["traceRecords"] as? [String])
        #expect(!records.isEmpty)
        #expect(records.allSatisfy { $0.contains(trace) })
    }

    @Test(.timeLimit(.minutes(5)))
    func quittingTheChatEndsItOnThePageInsteadOfOpeningANewOne() async throws {
        let seen = try await visit({ try await Fleet.start() }, "quit", bots: ["echo_bot"])
        let lines = try #require(seen["lines"] as? [[String]])
        #expect(lines.contains { $0.last == "Bye." })
        #expect(lines.last == ["tone-status", "The chat ended: open it again to go on."])
        #expect(seen["textDisabled"] as? Bool == true)
    }

    @Test(.timeLimit(.minutes(5)))
    func aPictureWithACaptionSentFromThePageReachesTheEchoBotAndComesBackShownAsAPicture() async throws {
        let seen = try await visit({ try await Fleet.start() }, "picture", bots: ["echo_bot"])
        let lines = try #require(seen["lines"] as? [[String]])
        let sent = try #require(lines.firstIndex { $0.first == "tone-own" && $0.last?.contains("(photo) a red square") == true })
        let echoed = try #require(lines.firstIndex {
            $0.first == "tone-message" && $0.last?.contains("echo_bot: (photo)") == true && $0.last?.contains("a red square") == true
        })
        #expect(sent < echoed)
        #expect(lines.contains { $0.last?.contains("alice reacted 👍 to") == true && $0.last?.contains("a red square") == true })
        let pictures = try #require(seen["pictures"] as? [[String: Any]])
        let shown = pictures.filter { ($0["width"] as? Int) == 16 && ($0["height"] as? Int) == 16 }
        #expect(Set(shown.compactMap { $0["tone"] as? String }) == ["tone-own", "tone-message"])
        #expect(shown.allSatisfy { ($0["pixel"] as? [Int]) == [0xCC, 0x22, 0x22] })
    }

    @Test(.timeLimit(.minutes(5)))
    func aBurstOfLogRecordsIsAddedToTheTrafficPaneInOneChangeKeepingTheNewest500() async throws {
        let seen = try await visit({ try await Fleet.start() }, "burst", bots: ["echo"])
        #expect(seen["shown"] as? [Int] == Array(4_500..<5_000))
        #expect(seen["lines"] as? Int == 500)
        #expect(seen["additions"] as? Int == 1)
        #expect(seen["atBottom"] as? Bool == true)
    }

    /// A browser opens at most six connections to a host: with a stream per part, two pages with their chat open
    /// held them all, and every request of either hung.
    @Test(.timeLimit(.minutes(5)))
    func aRequestOfOneTabIsAnsweredWhileASecondTabHasItsChatOpen() async throws {
        let seen = try await visit({ try await Fleet.start() }, "tabs", bots: ["echo_bot"])
        #expect(seen["aboutStatus"] as? Int == 200)
        #expect(seen["firstStreams"] as? Int == 1)
        #expect(seen["secondStreams"] as? Int == 1)
    }

    @Test(.timeLimit(.minutes(5)))
    func theSandboxsOwnConsoleChatsAndDropsASocketWithoutAFleet() async throws {
        let seen = try await visit({ try await Fleet.startSandbox() }, "sandbox", bots: ["bob"])
        #expect(seen["fleetShown"] as? Bool == false)
        let lines = try #require(seen["lines"] as? [[String]])
        #expect(lines.contains { $0.first == "tone-own" && $0.last?.contains("hello from the sandbox console") == true })
        #expect(lines.contains { $0.last?.contains("Reconnected.") == true })
        #expect((seen["faultResult"] as? String)?.contains("done") == true)
    }

    @Test(.timeLimit(.minutes(5)))
    func aFriendRequestIsAcceptedWithItsButton() async throws {
        let seen = try await visit({ try await Fleet.startSandbox() }, "friend", bots: ["bob"]) { sandbox in
            guard let api = sandbox.apiURL else { throw Failure(description: "the sandbox printed no API address") }
            return ["SANDBOX_API": api]
        }
        let lines = try #require(seen["lines"] as? [[String]])
        #expect(lines.contains { $0.last?.contains("bob (Bob) wants to be your friend") == true })
        #expect(lines.contains { $0.last?.contains("bob is now your friend") == true })
        #expect((seen["bobsFriends"] as? [String])?.contains("alice") == true)
    }

    @Test(.timeLimit(.minutes(5)))
    func withATokenThePageAsksForItAndItsSessionCookieOpensTheFleet() async throws {
        let token = "console-test-token"
        let seen = try await visit({ try await Fleet.start(token: token) }, "login", bots: ["echo", "reminders"], environment: { _ in ["CONSOLE_TOKEN": token] })
        #expect((seen["refused"] as? String)?.contains("not the control token") == true)
        #expect(seen["states"] as? [String: String] == ["echo": "live", "reminders": "live"])
        #expect(seen["scriptCookies"] as? String == "", "the session cookie is HttpOnly: scripts cannot read it")
    }

    @Test(.timeLimit(.minutes(5)))
    func aRateLimitShowsTheBotBackingOffThenLiveAgain() async throws {
        let seen = try await visit({ try await Fleet.start() }, "ratelimit", bots: ["echo"])
        let backingOff = try #require(seen["backingOff"] as? String)
        #expect(backingOff.contains("backing off"))
        #expect(backingOff.contains("until"))
        #expect(backingOff.contains("4008"))
        #expect(seen["liveAgain"] as? Bool == true)
        #expect((seen["traffic"] as? [String])?.isEmpty == false)
    }

    @Test(.timeLimit(.minutes(5)))
    func aServerRestartShowsEveryBotBackingOffThenLiveAgain() async throws {
        let seen = try await visit({ try await Fleet.start() }, "restart", bots: ["echo", "reminders"])
        let backingOff = try #require(seen["backingOff"] as? [String: String])
        #expect(backingOff.keys.sorted() == ["echo", "reminders"])
        #expect(backingOff.values.allSatisfy { $0.contains("backing off") })
        #expect(seen["liveAgain"] as? [String: String] == ["echo": "live", "reminders": "live"])
        #expect((seen["traffic"] as? [String])?.isEmpty == false)
    }
}
