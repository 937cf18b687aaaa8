import ChatterBots
@testable import ChatterSandbox
import Foundation
import Testing

@Suite("ULIDs and the rate limiter")
struct IdentifierAndRateLimiterTests {
    private static let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    @Test func aULIDIs26CrockfordCharactersWhoseFirstTenEncodeTheMillisecond() {
        let generator = ULIDGenerator()
        let id = generator.makeString(at: Timestamp(millisecondsSince1970: 1_767_225_600_000))

        #expect(id.count == 26)
        #expect(id.allSatisfy { Self.crockford.contains($0) })
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let time = id.prefix(10).reduce(Int64(0)) { $0 * 32 + Int64(alphabet.firstIndex(of: $1) ?? 0) }
        #expect(time == 1_767_225_600_000)
    }

    @Test func ulidsMadeInOneMillisecondStillSortInCreationOrder() {
        let generator = ULIDGenerator()
        let instant = Timestamp(millisecondsSince1970: 1_767_225_600_000)
        let ids = (0..<1_000).map { _ in generator.makeString(at: instant) }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        let later = generator.makeString(at: Timestamp(millisecondsSince1970: 1_767_225_600_001))
        #expect(later > ids[ids.count - 1])
    }

    @Test func everyULIDHasFreshRandomBitsEvenWithinOneMillisecond() {
        let generator = ULIDGenerator()
        let instant = Timestamp(millisecondsSince1970: 1_767_225_600_000)
        let ids = (0..<1_000).map { _ in generator.makeString(at: instant) }
        // The last 16 characters are the 80 random bits; a successor would share all but the last few.
        let randomParts = ids.map { String($0.suffix(16).prefix(10)) }
        #expect(Set(randomParts).count == ids.count, "an id within a millisecond is guessable from the one before")
    }

    @Test func aClockGoingBackwardsNeverProducesAnEarlierULID() {
        let generator = ULIDGenerator()
        let first = generator.makeString(at: Timestamp(millisecondsSince1970: 2_000_000_000_000))
        let second = generator.makeString(at: Timestamp(millisecondsSince1970: 1_000_000_000_000))
        #expect(second > first)
    }

    @Test func aBucketAllowsItsBurstThenRefillsContinuously() {
        var limiter = RateLimiter()
        let limit = SandboxRateLimit(requests: 4, window: .seconds(8))
        let start = Date(timeIntervalSince1970: 1_000)

        #expect((0..<4).map { _ in limiter.admit("a", limit: limit, at: start) } == Array(repeating: .allowed, count: 4))
        #expect(limiter.admit("a", limit: limit, at: start) == .limited(retryAfterSeconds: 2))
        #expect(limiter.admit("b", limit: limit, at: start) == .allowed, "buckets are per key")
        #expect(limiter.admit("a", limit: limit, at: start.addingTimeInterval(1.5)) == .limited(retryAfterSeconds: 1))
        #expect(limiter.admit("a", limit: limit, at: start.addingTimeInterval(2)) == .allowed)
        #expect(limiter.admit("a", limit: limit, at: start.addingTimeInterval(2)) == .limited(retryAfterSeconds: 2))
    }

    @Test func refusedRequestsDoNotDeepenTheDebt() {
        var limiter = RateLimiter()
        let limit = SandboxRateLimit(requests: 1, window: .seconds(10))
        let start = Date(timeIntervalSince1970: 0)
        _ = limiter.admit("a", limit: limit, at: start)
        for _ in 0..<50 { _ = limiter.admit("a", limit: limit, at: start) }
        #expect(limiter.admit("a", limit: limit, at: start.addingTimeInterval(10)) == .allowed)
    }
}
