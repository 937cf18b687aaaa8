import ChatterBots
import Synchronization

/// The Chatter service's domain rules over the sandbox store: every operation of chatter-api.md as a typed
/// method taking the caller and returning its result plus the events it causes.
///
/// All durable state lives in the store and every mutation is one transaction; the only state in memory is
/// the rate limiter's buckets. Errors are the API's own error bodies, ready for REST or an `error` frame.
public final class ChatterService: Sendable {
    public let store: SandboxStore
    public let clock: any ChatterClock
    public let configuration: SandboxServiceConfiguration
    let identifiers: ULIDGenerator
    let rateLimiter: Mutex<RateLimiter>

    /// A service over `store`, reading time from `clock`.
    public init(store: SandboxStore, clock: any ChatterClock, configuration: SandboxServiceConfiguration = .init()) {
        self.store = store
        self.clock = clock
        self.configuration = configuration
        self.identifiers = ULIDGenerator()
        self.rateLimiter = Mutex(RateLimiter())
    }

    /// The current time, truncated to the millisecond as the wire format keeps it.
    var now: Timestamp { Timestamp(clock.now) }
}
