import ChatterBots

/// How to run a sandbox: where it stores its data, where it listens, which clock its timers read, the service's
/// policies, the realtime timers, and the accounts to create at start-up.
public struct SandboxConfiguration: Sendable {
    /// Where the sandbox keeps its SQLite database.
    public enum Storage: Sendable, Hashable {
        /// In memory: gone when the sandbox shuts down.
        case memory
        /// A database file (created if missing, migrated to the current schema).
        case file(path: String)
    }

    public var storage: Storage
    /// The address to listen on; loopback by default.
    public var host: String
    /// The port; 0 lets the system choose a free one (read it back from `Sandbox.apiURL`).
    public var port: Int
    /// The time source of every timer and timestamp: `SystemClock`, or a `ManualClock`/`AcceleratedClock` in tests.
    public var clock: any ChatterClock
    /// Client keys, password hashing, token lifetimes, limits and rate limits of the service.
    public var service: SandboxServiceConfiguration
    /// Heartbeat, idle, typing and presence timers and the frame size limit of the realtime endpoint.
    public var realtime: RealtimeConfiguration
    /// Accounts and friendships created at start-up (`Sandbox.seeded`).
    public var seed: SandboxSeed?

    public init(
        storage: Storage = .memory, host: String = "127.0.0.1", port: Int = 0, clock: any ChatterClock = SystemClock(),
        service: SandboxServiceConfiguration = .init(), realtime: RealtimeConfiguration = .init(), seed: SandboxSeed? = nil
    ) {
        self.storage = storage
        self.host = host
        self.port = port
        self.clock = clock
        self.service = service
        self.realtime = realtime
        self.seed = seed
    }

    /// PBKDF2-HMAC-SHA256 iterations for new passwords (documented default 210,000; about 1,000 keeps tests fast).
    public var passwordHashIterations: Int {
        get { service.passwordHashIterations }
        set { service.passwordHashIterations = newValue }
    }
}
