import Foundation

/// One bot, ready to run.
public struct BotConfiguration: Sendable, Equatable {
    /// Unique among the bots; names the bot's data file.
    public var name: String
    /// The registered bot kind that runs it.
    public var kind: String
    /// The bot's Chatter account.
    public var credentials: BotCredentials
    /// Which friend requests are accepted without asking the bot's code.
    public var friendRequests: FriendRequestPolicy
    /// Kind-specific options, environment references resolved.
    public var options: BotOptions
    /// How fast the bot sends; nil: as fast as the connection takes frames. A 4008 or `RATE_LIMITED` pauses sending
    /// either way.
    public var sendPacing: SendPacing?
    /// Which receipts the bot sends; nil: the runtime's setting for every bot (by default both). For none at all,
    /// write `ReceiptPolicy.none`: a bare `.none` here is nil.
    public var receipts: ReceiptPolicy?

    /// Creates a bot's configuration.
    public init(
        name: String, kind: String, credentials: BotCredentials, friendRequests: FriendRequestPolicy,
        options: BotOptions = .empty, sendPacing: SendPacing? = .conservative, receipts: ReceiptPolicy? = nil
    ) {
        self.name = name
        self.kind = kind
        self.credentials = credentials
        self.friendRequests = friendRequests
        self.options = options
        self.sendPacing = sendPacing
        self.receipts = receipts
    }

    /// What the log must mask for this bot: its password, and every option value read from the environment or a
    /// file.
    package var secrets: [String] {
        [credentials.password] + options.referencedValues
    }
}

/// A bot's username and password. Its description hides the password, so it can be logged.
public struct BotCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The account's username.
    public var username: String
    /// The account's password.
    public var password: String

    /// Creates credentials.
    public init(username: String, password: String) {
        self.username = username
        self.password = password
    }

    public var description: String { "\(username) (password hidden)" }
}
