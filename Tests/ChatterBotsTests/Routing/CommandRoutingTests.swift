import Foundation
import Testing

@testable import ChatterBots

@Suite("Router commands, help, fallback")
struct CommandRoutingTests {
    let context = RecordingBotContext()

    /// A router with `/remind <delay> <task...>`, `/repeat <count> [word]`, `/ping` and `list reminders`,
    /// each replying with what it read.
    private func makeRouter(prefix: String = "/") -> MessageRouter {
        MessageRouter(commandPrefix: prefix) { router in
            router.command("remind", usage: "<delay> <task...>", summary: "remind you of <task> after <delay>") { message in
                let delay: Duration = try message.arguments.value("delay")
                let task: String = try message.arguments.value("task")
                try await message.reply("in \(delay.components.seconds)s: \(task)")
            }
            router.command("repeat", usage: "<count> [word]") { message in
                let count: Int = try message.arguments.value("count")
                let word = try message.arguments.optionalValue("word", as: String.self) ?? "hey"
                try await message.reply(Array(repeating: word, count: count).joined(separator: " "))
            }
            router.command("ping", summary: "check that I am here") { try await $0.reply("pong") }
            router.command("list reminders", prefixed: false, summary: "show your reminders") { try await $0.reply("no reminders") }
        }
    }

    @Test func aPrefixedCommandRunsWithItsTypedArguments() async throws {
        let outcome = try await context.say("/remind 10m stretch your legs", to: makeRouter())
        #expect(outcome == .command("remind"))
        #expect(context.replies == ["in 600s: stretch your legs"])
    }

    @Test func theRestParameterKeepsTheTextAsWritten() async throws {
        try await context.say("/remind 1h30m  water   the plants, please", to: makeRouter())
        #expect(context.replies == ["in 5400s: water   the plants, please"])
    }

    @Test func aQuotedArgumentIsKeptWhole() async throws {
        try await context.say(#"/repeat 2 "good night""#, to: makeRouter())
        try await context.say(#"/remind 5m "call mom""#, to: makeRouter())
        #expect(context.replies == ["good night good night", "in 300s: call mom"])
    }

    @Test func anOptionalArgumentMayBeLeftOut() async throws {
        try await context.say("/repeat 3", to: makeRouter())
        #expect(context.replies == ["hey hey hey"])
    }

    @Test func commandNamesMatchWithoutCase() async throws {
        #expect(try await context.say("/PING", to: makeRouter()) == .command("ping"))
        #expect(try await context.say("List Reminders", to: makeRouter()) == .command("list reminders"))
    }

    @Test func thePrefixIsConfigurable() async throws {
        let router = makeRouter(prefix: "!")
        #expect(try await context.say("!ping", to: router) == .command("ping"))
        #expect(try await context.say("/ping", to: router) == .unhandled)
        #expect(context.replies == ["pong"])
    }

    @Test func aMissingArgumentIsAnsweredWithTheUsage() async throws {
        let outcome = try await context.say("/remind 10m", to: makeRouter())
        #expect(outcome == .invalidArguments("remind"))
        #expect(context.replies == ["Missing <task>.\nusage: /remind <delay> <task...>"])
    }

    @Test func anArgumentOfTheWrongTypeIsAnsweredWithWhatWasExpected() async throws {
        let outcome = try await context.say("/remind soon stretch", to: makeRouter())
        #expect(outcome == .invalidArguments("remind"))
        #expect(context.replies == [
            "“soon” is not a duration like 90s, 10m or 1h30m (for <delay>).\nusage: /remind <delay> <task...>",
        ])
    }

    @Test func extraArgumentsAreAnsweredWithTheUsage() async throws {
        #expect(try await context.say("/ping now please", to: makeRouter()) == .invalidArguments("ping"))
        #expect(context.replies == ["I did not expect “now please”.\nusage: /ping"])
    }

    @Test func aPlainWordCommandWhoseArgumentsDoNotFitIsJustText() async throws {
        var router = makeRouter()
        router.fallback { try await $0.reply("fallback") }
        #expect(try await context.say("list reminders for my cat", to: router) == .fallback)
        #expect(context.replies == ["fallback"])
    }

    @Test func aCommandWordInTheMiddleOfTheTextIsNotACommand() async throws {
        #expect(try await context.say("please /ping", to: makeRouter()) == .unhandled)
        #expect(try await context.say(#""/ping""#, to: makeRouter()) == .unhandled)
    }

    @Test func anUnknownCommandIsAnswered() async throws {
        let outcome = try await context.say("/shrug", to: makeRouter())
        #expect(outcome == .unknownCommand("/shrug"))
        #expect(context.replies == ["I don't know /shrug. Send /help to see what I can do."])
    }

    @Test func withoutAnUnknownCommandReplyTheFallbackGetsIt() async throws {
        var router = makeRouter()
        router.unknownCommandReply = nil
        router.fallback { try await $0.reply("fallback") }
        #expect(try await context.say("/shrug", to: router) == .fallback)
    }

    @Test func helpListsTheCommandsInRegistrationOrder() async throws {
        #expect(try await context.say("/help", to: makeRouter()) == .help)
        #expect(context.replies == [
            """
            Commands:
            /remind <delay> <task...> — remind you of <task> after <delay>
            /repeat <count> [word]
            /ping — check that I am here
            list reminders — show your reminders
            /help [command...] — list the commands, or explain one
            """,
        ])
    }

    @Test func helpExplainsOneCommand() async throws {
        try await context.say("/help remind", to: makeRouter())
        try await context.say("/help /PING", to: makeRouter())
        try await context.say("/help list reminders", to: makeRouter())
        try await context.say("/help dance", to: makeRouter())
        #expect(context.replies == [
            "usage: /remind <delay> <task...>\nremind you of <task> after <delay>",
            "usage: /ping\ncheck that I am here",
            "usage: list reminders\nshow your reminders",
            "I have no command “dance”. Send /help to see them all.",
        ])
    }

    @Test func aRegisteredHelpCommandReplacesTheAutomaticOne() async throws {
        var router = makeRouter()
        router.command("help") { try await $0.reply("my own help") }
        #expect(try await context.say("/help", to: router) == .command("help"))
        #expect(context.replies == ["my own help"])
    }

    @Test func theAutomaticHelpCanBeTurnedOff() async throws {
        var router = makeRouter()
        router.helpCommand = nil
        #expect(try await context.say("/help", to: router) == .unknownCommand("/help"))
        #expect(context.replies == ["I don't know /help."])
    }

    @Test func theFirstMatchingRouteWinsInRegistrationOrder() async throws {
        let router = MessageRouter { router in
            router.command("reminders clear") { try await $0.reply("cleared") }
            router.command("reminders", usage: "[what...]") { try await $0.reply("reminders") }
            router.pattern(/reminders/) { message, _ in try await message.reply("pattern") }
        }
        #expect(try await context.say("/reminders clear", to: router) == .command("reminders clear"))
        #expect(try await context.say("/reminders all", to: router) == .command("reminders"))
        #expect(try await context.say("my reminders", to: router) == .pattern("pattern-1"))
        #expect(context.replies == ["cleared", "reminders", "pattern"])
    }

    @Test func theFallbackGetsWhatNothingElseTook() async throws {
        var router = makeRouter()
        router.fallback { try await $0.reply("you said: \($0.text)") }
        #expect(try await context.say("good morning", to: router) == .fallback)
        #expect(context.replies == ["you said: good morning"])
    }

    @Test func withoutAFallbackUnmatchedTextIsLeftAlone() async throws {
        #expect(try await context.say("good morning", to: makeRouter()) == .unhandled)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func systemMessagesAreNotRoutedNorSeenByMiddleware() async throws {
        var router = makeRouter()
        router.use(AccessControlMiddleware(allowing: [], refusal: .reply("go away")))
        router.fallback { try await $0.reply("fallback") }
        let outcome = try await router.route(chatMessage("Ana joined", kind: .system), context: context)
        #expect(outcome == .unhandled)
        #expect(context.sentMessages.isEmpty)
    }

    @Test func askingForAnUndeclaredArgumentIsAProgrammingErrorThatPropagates() async throws {
        let router = MessageRouter { router in
            router.command("ping") { message in _ = try message.arguments.value("target", as: String.self) }
        }
        await #expect(throws: RoutingError.undeclaredArgument(name: "target", command: "/ping", usage: "usage: /ping")) {
            try await context.say("/ping", to: router)
        }
        #expect(context.sentMessages.isEmpty)
    }

    @Test func argumentsAreAlsoAvailableAsWordsAndText() async throws {
        let seen = HandlerLog<CommandArguments>()
        let router = MessageRouter { router in
            router.command("note", usage: "[text...]") { seen.append($0.arguments) }
        }
        try await context.say(#"/note buy "oat milk"  today"#, to: router)
        let arguments = try #require(seen.all.first)
        #expect(arguments.words == ["buy", "oat milk", "today"])
        #expect(arguments.text == #"buy "oat milk"  today"#)
        #expect(arguments["text"] == #"buy "oat milk"  today"#)
        #expect(arguments.command == "/note")
    }

    @Test func repliesAreSentToTheConversationOfTheMessage() async throws {
        try await context.say("/ping", from: "U2", in: "C9", to: makeRouter())
        #expect(context.replies(in: "C9") == ["pong"])
    }
}

@Suite("Command argument values")
struct CommandArgumentValueTests {
    @Test func durationsReadCompactUnits() {
        #expect(Duration(commandArgument: "90s") == .seconds(90))
        #expect(Duration(commandArgument: "10m") == .seconds(600))
        #expect(Duration(commandArgument: "1h30m") == .seconds(5400))
        #expect(Duration(commandArgument: "2d") == .seconds(172_800))
        #expect(Duration(commandArgument: "1.5H") == .seconds(5400))
        #expect(Duration(commandArgument: "10mins") == .seconds(600))
    }

    @Test func durationsRejectWhatIsNotOne() {
        for text in ["", "10", "m", "10x", "ten minutes", "1h 30m", "-5m"] {
            #expect(Duration(commandArgument: text) == nil, "\(text)")
        }
    }

    @Test func booleansReadYesAndNoWords() {
        #expect(["yes", "Y", "true", "ON"].map { Bool(commandArgument: $0) } == [true, true, true, true])
        #expect(["no", "n", "FALSE", "off"].map { Bool(commandArgument: $0) } == [false, false, false, false])
        #expect(Bool(commandArgument: "maybe") == nil)
    }

    @Test func timesOfDayReadTwentyFourHourTimes() throws {
        #expect(TimeOfDay(commandArgument: "18:30") == (try TimeOfDay(hour: 18, minute: 30)))
        #expect(TimeOfDay(commandArgument: "9:05") == (try TimeOfDay(hour: 9, minute: 5)))
        for text in ["24:00", "18:60", "1830", "18:3", "x8:30", ""] {
            #expect(TimeOfDay(commandArgument: text) == nil, "\(text)")
        }
    }

    @Test func numbersRejectNonFiniteValues() {
        #expect(Int(commandArgument: "42") == 42)
        #expect(Double(commandArgument: "2.5") == 2.5)
        #expect(Double(commandArgument: "inf") == nil)
        #expect(Double(commandArgument: "nan") == nil)
    }
}
