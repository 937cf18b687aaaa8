import Foundation
import Testing

@testable import ChatterBots

/// Records "<name>" each time a message passes through it, then goes on.
private struct MarkingMiddleware: MessageMiddleware {
    let name: String
    let log: HandlerLog<String>

    func handle(_ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome {
        log.append(name)
        return try await next(message)
    }
}

@Suite("Routers that include routers")
struct IncludedRouterTests {
    let ana = User(id: "U1", username: "ana", displayName: "Ana")
    let eve = User(id: "U3", username: "eve", displayName: "Eve")

    private func makeContext() -> RecordingBotContext {
        RecordingBotContext(friends: [ana, eve].map { Friend(user: $0, since: Timestamp(millisecondsSince1970: 0)) })
    }

    /// `/pause` for ana only; `/ping` for anyone.
    private func makeRouter(log: HandlerLog<String> = HandlerLog()) -> MessageRouter {
        let admin = MessageRouter { admin in
            admin.use(MarkingMiddleware(name: "admin", log: log))
            admin.use(AccessControlMiddleware(allowing: [.username("ana")], refusal: .reply("Only my owner may.")))
            admin.command("pause", usage: "[minutes]", summary: "stop answering for a while") { message in
                let minutes = try message.arguments.optionalValue("minutes", as: Int.self) ?? 60
                try await message.reply("Paused for \(minutes) minutes.")
            }
        }
        return MessageRouter { router in
            router.use(MarkingMiddleware(name: "root", log: log))
            router.command("ping", summary: "check that I am here") { try await $0.reply("pong") }
            router.include(admin)
            router.fallback { try await $0.reply("fallback") }
        }
    }

    /// The example of the README's "Writing your own bot", as written there.
    private func readmeRouter() -> MessageRouter {
        let owner = MessageRouter { owner in
            owner.use(AccessControlMiddleware(allowing: [.username("ana")]))
            owner.command("pause", usage: "[minutes]", summary: "stop answering for a while") { message in
                let minutes = try message.arguments.optionalValue("minutes", as: Int.self) ?? 60
                try await message.reply("Paused for \(minutes) minutes.")
            }
        }
        let router = MessageRouter { router in
            router.use(LoggingMiddleware())  // every message
            router.command("ping", summary: "check that I am here") { try await $0.reply("pong") }
            router.include(owner)            // only ana may /pause; anyone may /ping, and /help lists both
        }
        return router
    }

    @Test func theReadmeExampleGuardsOnlyTheOwnersCommand() async throws {
        let context = makeContext()
        let router = readmeRouter()
        for (text, sender) in [("/ping", eve.id), ("/pause", eve.id), ("/pause 5", ana.id), ("/help", eve.id)] {
            try await context.say(text, from: sender, to: router)
        }
        #expect(context.replies == [
            "pong", "Sorry, I only talk with people on my list. Ask my owner to add you.", "Paused for 5 minutes.",
            """
            Commands:
            /ping — check that I am here
            /pause [minutes] — stop answering for a while
            /help [command...] — list the commands, or explain one
            """,
        ])
    }

    @Test func anIncludedRoutersMiddlewareRunsOnlyForItsOwnRoutes() async throws {
        let context = makeContext()
        let log = HandlerLog<String>()
        let router = makeRouter(log: log)
        #expect(try await context.say("/ping", from: eve.id, to: router) == .command("ping"))
        #expect(try await context.say("good morning", from: eve.id, to: router) == .fallback)
        #expect(try await context.say("/pause", from: eve.id, to: router) == .stopped("access refused"))
        #expect(context.replies == ["pong", "fallback", "Only my owner may."])
        #expect(log.all == ["root", "root", "root", "admin"])
    }

    @Test func theIncludingRoutersMiddlewareRunsOutsideTheIncludedOnes() async throws {
        let context = makeContext()
        let log = HandlerLog<String>()
        #expect(try await context.say("/pause 5", from: ana.id, to: makeRouter(log: log)) == .command("pause"))
        #expect(context.replies == ["Paused for 5 minutes."])
        #expect(log.all == ["root", "admin"])
    }

    @Test func theUsageOfAnIncludedCommandIsAnsweredInsideItsMiddleware() async throws {
        let context = makeContext()
        let router = makeRouter()
        #expect(try await context.say("/pause 5 please", from: eve.id, to: router) == .stopped("access refused"))
        #expect(try await context.say("/pause 5 please", from: ana.id, to: router) == .invalidArguments("pause"))
        #expect(context.replies == ["Only my owner may.", "I did not expect “please”.\nusage: /pause [minutes]"])
    }

    @Test func includedRoutesAreTriedWhereTheyWereIncluded() async throws {
        let context = makeContext()
        let greetings = MessageRouter { greetings in
            greetings.pattern(/hello/, name: "included hello") { message, _ in try await message.reply("included") }
        }
        let router = MessageRouter { router in
            router.pattern(/hello world/, name: "before") { message, _ in try await message.reply("before") }
            router.include(greetings)
            router.pattern(/hello/, name: "after") { message, _ in try await message.reply("after") }
        }
        #expect(try await context.say("hello world", to: router) == .pattern("before"))
        #expect(try await context.say("hello there", to: router) == .pattern("included hello"))
        #expect(context.replies == ["before", "included"])
    }

    @Test func helpListsTheCommandsOfIncludedRoutersInRoutingOrder() async throws {
        let context = makeContext()
        #expect(try await context.say("/help", to: makeRouter()) == .help)
        try await context.say("/help pause", to: makeRouter())
        #expect(context.replies == [
            """
            Commands:
            /ping — check that I am here
            /pause [minutes] — stop answering for a while
            /help [command...] — list the commands, or explain one
            """,
            "usage: /pause [minutes]\nstop answering for a while",
        ])
    }

    @Test func nestedRoutersEachWrapOnlyTheirOwnRoutes() async throws {
        let context = makeContext()
        let log = HandlerLog<String>()
        let inner = MessageRouter { inner in
            inner.use(MarkingMiddleware(name: "inner", log: log))
            inner.command("deep") { try await $0.reply("deep") }
        }
        let middle = MessageRouter { middle in
            middle.use(MarkingMiddleware(name: "middle", log: log))
            middle.command("shallow") { try await $0.reply("shallow") }
            middle.include(inner)
        }
        let router = MessageRouter { router in
            router.use(MarkingMiddleware(name: "root", log: log))
            router.include(middle)
        }
        try await context.say("/deep", to: router)
        #expect(log.all == ["root", "middle", "inner"])
        try await context.say("/shallow", to: router)
        #expect(log.all == ["root", "middle", "inner", "root", "middle"])
        #expect(context.replies == ["deep", "shallow"])
    }

    @Test func anIncludedRoutersDialogAnswersRunInsideItsMiddleware() async throws {
        let context = makeContext()
        let log = HandlerLog<String>()
        let survey = Dialog("survey", initialValues: "")
            .step("color", ask: "Favourite color?") { answer, color in
                color = answer.text
                return .finish
            }
            .onFinish { message, color in try await message.reply("\(color), noted.") }
        let surveys = MessageRouter { surveys in
            surveys.use(MarkingMiddleware(name: "surveys", log: log))
            surveys.dialog(survey)
            surveys.command("survey") { try await $0.startDialog(survey) }
        }
        let router = MessageRouter { router in router.include(surveys) }
        try await context.say("/survey", to: router)
        #expect(try await context.say("blue", to: router) == .dialog("survey"))
        #expect(context.replies == ["Favourite color?", "blue, noted."])
        #expect(log.all == ["surveys", "surveys"])
    }

    @Test func aCommandRegisteredInTwoRoutersStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let first = MessageRouter { $0.command("ping") { _ in } }
            _ = MessageRouter { router in
                router.command("PING") { _ in }
                router.include(first)
            }
        }
    }

    @Test func aCommandRegisteredTwiceInOneRouterStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = MessageRouter { router in
                router.command("list reminders", prefixed: false) { _ in }
                router.command("list  reminders", prefixed: false) { _ in }
            }
        }
    }

    @Test func theSameWordsPrefixedAndPlainAreTwoCommands() async throws {
        let context = makeContext()
        let plain = MessageRouter { $0.command("stats", prefixed: false) { try await $0.reply("plain") } }
        let router = MessageRouter { router in
            router.command("stats") { try await $0.reply("prefixed") }
            router.include(plain)
        }
        try await context.say("/stats", to: router)
        try await context.say("stats", to: router)
        #expect(context.replies == ["prefixed", "plain"])
    }

    @Test func aDialogRegisteredInTwoRoutersStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let survey = Dialog("survey", initialValues: "").step("color", ask: "Favourite color?") { _, _ in .finish }
            let surveys = MessageRouter { $0.dialog(survey) }
            _ = MessageRouter { router in
                router.dialog(survey)
                router.include(surveys)
            }
        }
    }

    @Test func anIncludedRouterWithAFallbackStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let chatty = MessageRouter { $0.fallback { _ in } }
            _ = MessageRouter { $0.include(chatty) }
        }
    }

    @Test func anIncludedRouterWithAnotherPrefixStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let bang = MessageRouter(commandPrefix: "!") { $0.command("ping") { _ in } }
            _ = MessageRouter { $0.include(bang) }
        }
    }
}
