import ChatterBots

/// A client key of the sandbox's workspace and its secret (the secret guards the developer endpoints).
public struct SandboxClientCredential: Hashable, Sendable {
    public var clientKey: String
    public var clientSecret: String

    public init(clientKey: String, clientSecret: String) {
        self.clientKey = clientKey
        self.clientSecret = clientSecret
    }

    /// The default credential: `ck_sandbox` / `cs_sandbox`.
    public static let sandbox = SandboxClientCredential(clientKey: "ck_sandbox", clientSecret: "cs_sandbox")
}

/// A request budget: at most `requests` in any `window`, refilled continuously (a token bucket).
public struct SandboxRateLimit: Hashable, Sendable {
    public var requests: Int
    public var window: Duration

    public init(requests: Int, window: Duration) {
        self.requests = requests
        self.window = window
    }
}

/// Every limit and policy of the sandbox's service, with the documented defaults.
public struct SandboxServiceConfiguration: Sendable {
    /// The workspace's client keys. Default: one, `ck_sandbox` / `cs_sandbox`.
    public var clients: [SandboxClientCredential]
    /// PBKDF2-HMAC-SHA256 iterations for new password hashes. Default 210,000 (OWASP 2023); use ~1,000 in tests.
    public var passwordHashIterations: Int
    /// Shortest accepted password, in characters. Default 8.
    public var minimumPasswordLength: Int
    /// Lifetime of an access token (`expiresIn`). Default 1 hour.
    public var accessTokenLifetime: Duration
    /// Lifetime of an unused refresh token. Default 30 days.
    public var refreshTokenLifetime: Duration
    /// How long a `clientMessageId` keeps returning the same message. Default 24 hours (the contract's minimum).
    public var idempotencyRetention: Duration
    /// Longest message body, in characters. Default 4,096.
    public var maxMessageCharacters: Int
    /// Largest request body except media uploads. Default 1 MiB.
    public var maxRequestBodyBytes: Int
    /// Largest media upload. Default 10 MiB.
    public var maxMediaBytes: Int
    /// `limit` of a message page when the request gives none. Default 100.
    public var defaultMessagePageSize: Int
    /// Largest `limit` of a message page; a larger one is VALIDATION_FAILED. Default 500.
    public var maxMessagePageSize: Int
    /// `limitPerConversation` of a sync when the request gives none. Default 100.
    public var defaultSyncLimit: Int
    /// Largest `limitPerConversation` of a sync; a larger one is capped to it. Default 500.
    public var maxSyncLimit: Int
    /// Conversations per `GET /conversations` page. Default 100.
    public var conversationPageSize: Int
    /// Request budget of each device: REST requests, token refreshes, realtime connects and every client frame
    /// but `ping`. Default 600 per minute.
    public var deviceRateLimit: SandboxRateLimit
    /// Request budget of each client key for the requests that have no user or device to charge: register and
    /// the developer endpoints. Default 600 per minute.
    public var clientRateLimit: SandboxRateLimit
    /// Sign-in attempts (`POST /auth/login`, right password or not) per username, and per device id when the
    /// attempt names one: the limit on password guessing, which one noisy client cannot spend for everyone.
    /// Default 10 per minute.
    public var signInRateLimit: SandboxRateLimit

    /// Whether conversations changed in the same millisecond keep the same `updatedAt`, as a service may (the
    /// contract does not promise distinct times). Default false: each change gets a time later than every
    /// conversation's, so paging by `updatedSince` never meets a tie.
    package var conversationUpdateTimesMayTie = false

    /// The usernames and passwords the service accepts for a new account.
    package var accountRules: SandboxAccountRules {
        SandboxAccountRules(minimumPasswordLength: minimumPasswordLength)
    }

    public init(
        clients: [SandboxClientCredential] = [.sandbox],
        passwordHashIterations: Int = 210_000,
        minimumPasswordLength: Int = 8,
        accessTokenLifetime: Duration = .seconds(3600),
        refreshTokenLifetime: Duration = .seconds(30 * 86_400),
        idempotencyRetention: Duration = .seconds(24 * 3600),
        maxMessageCharacters: Int = 4096,
        maxRequestBodyBytes: Int = 1 << 20,
        maxMediaBytes: Int = 10 << 20,
        defaultMessagePageSize: Int = 100,
        maxMessagePageSize: Int = 500,
        defaultSyncLimit: Int = 100,
        maxSyncLimit: Int = 500,
        conversationPageSize: Int = 100,
        deviceRateLimit: SandboxRateLimit = SandboxRateLimit(requests: 600, window: .seconds(60)),
        clientRateLimit: SandboxRateLimit = SandboxRateLimit(requests: 600, window: .seconds(60)),
        signInRateLimit: SandboxRateLimit = SandboxRateLimit(requests: 10, window: .seconds(60))
    ) {
        self.clients = clients
        self.passwordHashIterations = passwordHashIterations
        self.minimumPasswordLength = minimumPasswordLength
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.idempotencyRetention = idempotencyRetention
        self.maxMessageCharacters = maxMessageCharacters
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.maxMediaBytes = maxMediaBytes
        self.defaultMessagePageSize = defaultMessagePageSize
        self.maxMessagePageSize = maxMessagePageSize
        self.defaultSyncLimit = defaultSyncLimit
        self.maxSyncLimit = maxSyncLimit
        self.conversationPageSize = conversationPageSize
        self.deviceRateLimit = deviceRateLimit
        self.clientRateLimit = clientRateLimit
        self.signInRateLimit = signInRateLimit
    }
}
