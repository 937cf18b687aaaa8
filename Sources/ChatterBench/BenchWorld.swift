import ChatterBots
import Foundation

/// The accounts a scenario needs, as the driver asks the server process to create them: bot accounts (which sign
/// in themselves, as a deployed bot does), people (signed in by the server, who send and receive through their own
/// sockets or REST), friendships and direct conversations between them, and messages already waiting.
struct WorldSpec: Codable, Sendable {
    /// One direct conversation between a person and a bot (friends), started by the person.
    struct Link: Codable, Sendable {
        var person: Int
        var bot: Int
        /// Messages the person has sent before the bot starts (the bot finds them by syncing).
        var waitingMessages: Int
    }

    /// A group conversation started by `owner` (made friends with every other member first, as the service
    /// requires) with `members` (people's indices, the owner included).
    struct Group: Codable, Sendable {
        var owner: Int
        var members: [Int]
    }

    var botUsernames: [String]
    var personUsernames: [String]
    var password: String
    var links: [Link]
    var groups: [Group] = []
}

/// The accounts and conversations the server created for a `WorldSpec`, with the people's tokens.
struct BenchWorld: Codable, Sendable {
    struct Bot: Codable, Sendable {
        var username: String
        var userId: User.ID
    }

    struct Person: Codable, Sendable {
        var username: String
        var userId: User.ID
        var deviceId: Device.ID
        var accessToken: String
        var refreshToken: String
    }

    struct Link: Codable, Sendable {
        var conversationId: Conversation.ID
        var person: Int
        var bot: Int
    }

    struct Group: Codable, Sendable {
        var conversationId: Conversation.ID
        /// People's indices, the owner included.
        var members: [Int]
    }

    var password: String
    var bots: [Bot]
    var people: [Person]
    var links: [Link]
    var groups: [Group] = []
}

/// Where the server under test listens and which kind it is.
struct ServerEndpoint: Codable, Sendable {
    var apiURL: URL
    var webSocketURL: URL
    var clientKey: String
    var port: Int
    /// `sandbox` (ChatterSandbox on SQLite) or `load` (the lean in-memory load server).
    var kind: String

    var configuration: ChatterServerConfiguration {
        ChatterServerConfiguration(apiBaseURL: apiURL, webSocketURL: webSocketURL, clientKey: clientKey)
    }
}

/// The line the server process prints once it listens (and has built the world, if asked to).
struct ServeAnnouncement: Codable, Sendable {
    var endpoint: ServerEndpoint
    var world: BenchWorld?
    /// How long building the world took, in seconds.
    var setupSeconds: Double
}
