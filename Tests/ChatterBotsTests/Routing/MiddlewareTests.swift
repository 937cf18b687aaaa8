import Testing

@testable import ChatterBots

/// Records "<name> before" and "<name> after" around the rest of the chain.
private struct TracingMiddleware: MessageMiddleware {
    let name: String
    let log: HandlerLog<String>

    func handle(_ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome {
        log.append("\(name) before")
        let outcome = try await next(message)
        log.append("\(name) after \(outcome)")
        return outcome
    }
}

@Suite("Router middleware")
struct MiddlewareTests {
    let context = RecordingBotContext()

    @Test func middlewareRunsInTheOrderAddedAroundTheHandler() async throws {
        let log = HandlerLog<String>()
        let router = MessageRouter { router in
            router.use(TracingMiddleware(name: "outer", log: log))
            router.use(TracingMiddleware(name: "inner", log: log))
            router.command("ping") { _ in log.append("handler") }
        }
        try await context.say("/ping", to: router)
        #expect(log.all == ["outer before", "inner before", "handler", "inner after command:ping", "outer after command:ping"])
    }

    @Test func aMiddlewareThatDoesNotCallNextStopsTheChain() async throws {
        let log = HandlerLog<String>()
        let router = MessageRouter { router in
            router.use(TracingMiddleware(name: "outer", log: log))
            router.use { message, _ in
                try await message.reply("closed today")
                return .stopped("closed")
            }
            router.use(TracingMiddleware(name: "inner", log: log))
            router.command("ping") { _ in log.append("handler") }
        }
        #expect(try await context.say("/ping", to: router) == .stopped("closed"))
        #expect(log.all == ["outer before", "outer after stopped:closed"])
        #expect(context.replies == ["closed today"])
    }

    @Test func middlewareWrapsDialogsHelpAndFallbackToo() async throws {
        let log = HandlerLog<String>()
        let router = MessageRouter { router in
            router.use(TracingMiddleware(name: "m", log: log))
            router.fallback { _ in }
        }
        try await context.say("/help", to: router)
        try await context.say("anything", to: router)
        #expect(log.all == ["m before", "m after help", "m before", "m after fallback"])
    }

    @Test func aMiddlewarePassesAChangedMessageOn() async throws {
        let router = MessageRouter { router in
            router.use { message, next in
                var tagged = message
                tagged.logger = message.logger.with(["tenant": "blue"])
                return try await next(tagged)
            }
            router.command("ping") { $0.logger.info("pinged") }
        }
        try await context.say("/ping", to: router)
        #expect(context.logRecords.map(\.fields["tenant"]) == ["blue"])
    }

    @Test func handlerErrorsPropagateThroughMiddleware() async throws {
        struct Boom: Error {}
        let log = HandlerLog<String>()
        let router = MessageRouter { router in
            router.use(TracingMiddleware(name: "m", log: log))
            router.command("ping") { _ in throw Boom() }
        }
        await #expect(throws: Boom.self) { try await context.say("/ping", to: router) }
        #expect(log.all == ["m before"])
    }

    @Test func loggingTracesEveryRecordOfAMessageWithItsId() async throws {
        let router = MessageRouter { router in
            router.use(LoggingMiddleware())
            router.command("ping") { message in
                message.logger.info("handling ping")
                try await message.reply("pong")
            }
        }
        let message = chatMessage("/ping", from: "U7", in: "C3")
        try await router.route(message, context: context)
        let records = context.logRecords
        #expect(records.map(\.message) == ["message received", "handling ping", "message routed"])
        #expect(records.map(\.level) == [.debug, .info, .info])
        #expect(records.allSatisfy { $0.fields["trace"] == message.id.rawValue })
        #expect(records[0].fields["sender"] == "U7" && records[0].fields["conversation"] == "C3")
        #expect(records[0].fields["length"] == "5")
        #expect(records[2].fields["route"] == "command:ping")
        #expect(!records.contains { $0.fields.values.contains("/ping") })
    }

    @Test func loggingRecordsAFailureAndRethrows() async throws {
        struct Boom: Error {}
        let router = MessageRouter { router in
            router.use(LoggingMiddleware())
            router.command("ping") { _ in throw Boom() }
        }
        await #expect(throws: Boom.self) { try await context.say("/ping", to: router) }
        #expect(context.logRecords.last?.message == "message handling failed")
        #expect(context.logRecords.last?.level == .error)
    }
}
