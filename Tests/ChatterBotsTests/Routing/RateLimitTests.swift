import Foundation
import Testing

@testable import ChatterBots

@Suite("Token bucket")
struct TokenBucketTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aFullBucketAllowsABurstOfItsCapacity() {
        var bucket = TokenBucket(capacity: 3, at: start)
        let results = (0..<4).map { _ in bucket.take(at: start, capacity: 3, refillInterval: .seconds(10)) }
        #expect(results == [nil, nil, nil, .seconds(10)])
    }

    @Test func tokensRefillOverTimeUpToTheCapacity() {
        var bucket = TokenBucket(capacity: 2, at: start)
        _ = bucket.take(at: start, capacity: 2, refillInterval: .seconds(10))
        _ = bucket.take(at: start, capacity: 2, refillInterval: .seconds(10))
        #expect(bucket.take(at: start.addingTimeInterval(4), capacity: 2, refillInterval: .seconds(10)) == .seconds(6))
        #expect(bucket.take(at: start.addingTimeInterval(10), capacity: 2, refillInterval: .seconds(10)) == nil)
        #expect(bucket.take(at: start.addingTimeInterval(1000), capacity: 2, refillInterval: .seconds(10)) == nil)
        #expect(bucket.take(at: start.addingTimeInterval(1000), capacity: 2, refillInterval: .seconds(10)) == nil)
        #expect(bucket.take(at: start.addingTimeInterval(1000), capacity: 2, refillInterval: .seconds(10)) == .seconds(10))
    }

    @Test func aClockGoingBackwardsRefillsNothing() {
        var bucket = TokenBucket(capacity: 1, at: start)
        _ = bucket.take(at: start, capacity: 1, refillInterval: .seconds(10))
        #expect(bucket.take(at: start.addingTimeInterval(-3600), capacity: 1, refillInterval: .seconds(10)) == .seconds(10))
        #expect(bucket.take(at: start.addingTimeInterval(10), capacity: 1, refillInterval: .seconds(10)) == nil)
    }
}

@Suite("Rate limit middleware")
struct RateLimitTests {
    let context = RecordingBotContext()

    /// Bursts of 3, then one message every 20 s.
    private func makeRouter(name: String = "messages") -> MessageRouter {
        MessageRouter { router in
            router.use(RateLimitMiddleware(messages: 3, per: .seconds(60), name: name))
            router.fallback { try await $0.reply("ok") }
        }
    }

    @Test func aSenderOverTheLimitIsToldOnceHowLongToWait() async throws {
        let router = makeRouter()
        var outcomes: [RoutingOutcome] = []
        for _ in 0..<5 { outcomes.append(try await context.say("hi", to: router)) }
        #expect(outcomes == [.fallback, .fallback, .fallback, .stopped("rate limited"), .stopped("rate limited")])
        #expect(context.replies == [
            "ok", "ok", "ok", "You are sending messages faster than I can answer. Please wait 20 s and try again.",
        ])
    }

    @Test func anotherSenderIsUnaffected() async throws {
        let router = makeRouter()
        for _ in 0..<4 { try await context.say("hi", from: "U1", to: router) }
        #expect(try await context.say("hi", from: "U2", to: router) == .fallback)
        #expect(context.replies.last == "ok")
    }

    @Test func tokensRefillAsTheContextClockAdvances() async throws {
        let router = makeRouter()
        for _ in 0..<3 { try await context.say("hi", to: router) }
        #expect(try await context.say("hi", to: router) == .stopped("rate limited"))
        context.advance(by: .seconds(19))
        #expect(try await context.say("hi", to: router) == .stopped("rate limited"))
        context.advance(by: .seconds(1))
        #expect(try await context.say("hi", to: router) == .fallback)
        #expect(try await context.say("hi", to: router) == .stopped("rate limited"))
        #expect(context.replies.count(where: { $0.hasPrefix("You are sending") }) == 2)
    }

    @Test func theLimitIsKeptInContextStateAcrossRouterInstances() async throws {
        for _ in 0..<3 { try await context.say("hi", to: makeRouter()) }
        #expect(try await context.say("hi", to: makeRouter()) == .stopped("rate limited"))
    }

    @Test func differentlyNamedLimitsCountSeparately() async throws {
        for _ in 0..<3 { try await context.say("hi", to: makeRouter(name: "a")) }
        #expect(try await context.say("hi", to: makeRouter(name: "b")) == .fallback)
    }

    @Test func theReplyCanBeCustomOrSilent() async throws {
        let custom = MessageRouter { router in
            router.use(RateLimitMiddleware(messages: 1, per: .seconds(90), name: "custom") { "wait \($0.components.seconds)s" })
        }
        let silent = MessageRouter { router in
            router.use(RateLimitMiddleware(messages: 1, per: .seconds(90), name: "silent", exceededReply: nil))
        }
        for _ in 0..<2 { try await context.say("hi", to: custom) }
        for _ in 0..<2 { try await context.say("hi", to: silent) }
        #expect(context.replies == ["wait 90s"])
    }
}
