import Foundation
import Testing

@testable import ChatterBots

@Suite("Router patterns")
struct PatternRoutingTests {
    let context = RecordingBotContext()

    @Test func aSwiftRegexHandsItsTypedCapturesToTheHandler() async throws {
        let router = MessageRouter { router in
            router.pattern(/remind me in (\d+) minutes? to (?<task>.+)/, name: "remind-in") { message, match in
                try await message.reply("\(match.1) min: \(match.task)")
            }
        }
        #expect(try await context.say("please remind me in 5 minutes to drink water", to: router) == .pattern("remind-in"))
        #expect(context.replies == ["5 min: drink water"])
    }

    @Test func capturesAreAlsoReadableByNumberAndName() async throws {
        let seen = HandlerLog<PatternCaptures>()
        let router = MessageRouter { router in
            router.pattern(/(\d+):(?<minute>\d\d)( pm)?/) { message, _ in seen.append(message.captures) }
        }
        try await context.say("see you at 6:30 then", to: router)
        let captures = try #require(seen.all.first)
        #expect(captures.match == "6:30")
        #expect(captures[1] == "6")
        #expect(captures["minute"] == "30")
        #expect(captures[3] == nil)
        #expect(captures[9] == nil)
    }

    @Test func patternsMatchCaseSensitivelyUnlessAsked() async throws {
        let router = MessageRouter { router in
            router.pattern(/hello/, name: "exact") { message, _ in try await message.reply("exact") }
            router.pattern(/good (morning|night)/, name: "caseless", ignoringCase: true) { message, match in
                try await message.reply("caseless \(match.1)")
            }
        }
        #expect(try await context.say("HELLO", to: router) == .unhandled)
        #expect(try await context.say("Good MORNING", to: router) == .pattern("caseless"))
        #expect(context.replies == ["caseless MORNING"])
    }

    @Test func anNSRegularExpressionWorksWithNamedCaptures() async throws {
        let expression = try NSRegularExpression(pattern: #"weather in (?<city>[A-Za-z ]+?)(?: tomorrow)?$"#)
        let router = MessageRouter { router in
            router.pattern(expression, name: "weather", ignoringCase: true) { message in
                try await message.reply("city=\(message.captures["city"] ?? "?") group1=\(message.captures[1] ?? "?")")
            }
        }
        #expect(try await context.say("Weather in Lisbon tomorrow", to: router) == .pattern("weather"))
        #expect(context.replies == ["city=Lisbon group1=Lisbon"])
    }

    @Test func aPatternHandlerRejectsInputWithACommandArgumentError() async throws {
        let router = MessageRouter { router in
            router.pattern(/set volume (\d+)/, name: "volume") { message, match in
                guard let level = Int(match.1), level <= 10 else {
                    throw CommandArgumentError(
                        .invalid(value: String(match.1), parameter: "level", expected: "a level from 0 to 10"),
                        usage: "usage: set volume <level>")
                }
                try await message.reply("volume \(level)")
            }
        }
        #expect(try await context.say("set volume 11", to: router) == .invalidArguments("volume"))
        #expect(context.replies == ["“11” is not a level from 0 to 10 (for <level>).\nusage: set volume <level>"])
    }

    @Test func readingArgumentsInAPatternHandlerIsAProgrammingError() async throws {
        let router = MessageRouter { router in
            router.pattern(/x/) { message, _ in _ = try message.arguments.value("y", as: String.self) }
        }
        await #expect(throws: RoutingError.self) { try await context.say("x", to: router) }
    }

    @Test func unnamedPatternsAreNumberedInOrder() async throws {
        let router = MessageRouter { router in
            router.pattern(/a/) { _, _ in }
            router.pattern(/b/) { _, _ in }
        }
        #expect(try await context.say("b", to: router) == .pattern("pattern-2"))
    }

    @Test func aRouterIsSharedSafelyByConcurrentConversations() async throws {
        let router = MessageRouter { router in
            router.pattern(/(\d+) \+ (\d+)/) { message, match in
                try await message.reply(String((Int(match.1) ?? 0) + (Int(match.2) ?? 0)))
            }
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask { try await context.say("\(index) + 1", in: Conversation.ID("C\(index)"), to: router) }
            }
            try await group.waitForAll()
        }
        for index in 0..<50 {
            #expect(context.replies(in: Conversation.ID("C\(index)")) == [String(index + 1)])
        }
    }
}
