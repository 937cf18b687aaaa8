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
    /// How many more requests to each endpoint fail with `INTERNAL` (`SandboxAdmin.failRequests(to:count:)`).
    /// Per endpoint, how many more requests fail, and with what.
    private let armedFailures = Mutex<[ChatterEndpoint: (count: Int, error: ChatterErrorBody)]>([:])
    /// Requests to each endpoint kept unanswered (`SandboxAdmin.holdRequests(to:)`).
    private let holds = Mutex<[ChatterEndpoint: SandboxRequestHold]>([:])

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

    /// Makes the next `count` requests to `endpoint` fail with `error` (by default `INTERNAL`); 0 disarms it.
    func armFailures(
        of endpoint: ChatterEndpoint, count: Int,
        error: ChatterErrorBody = ChatterErrorBody(
            code: .internalError, message: "The sandbox was asked to fail this request (SandboxAdmin.failRequests).")
    ) {
        armedFailures.withLock { $0[endpoint] = count > 0 ? (count, error) : nil }
    }

    /// Holds the next requests to `endpoint` until the returned hold is released; replaces an earlier hold.
    func holdRequests(to endpoint: ChatterEndpoint) -> SandboxRequestHold {
        let hold = SandboxRequestHold()
        holds.withLock { $0[endpoint] = hold }
        return hold
    }

    /// Waits while a request to `endpoint` is held.
    func waitWhileHeld(_ endpoint: ChatterEndpoint) async {
        guard let hold = holds.withLock({ $0[endpoint] }) else { return }
        await hold.hold()
    }

    /// Throws `INTERNAL` when a request to `endpoint` is armed to fail, counting it.
    func failIfArmed(_ endpoint: ChatterEndpoint) throws(ChatterErrorBody) {
        let failure = armedFailures.withLock { failures -> ChatterErrorBody? in
            guard let armed = failures[endpoint] else { return nil }
            failures[endpoint] = armed.count > 1 ? (armed.count - 1, armed.error) : nil
            return armed.error
        }
        if let failure { throw failure }
    }
}
