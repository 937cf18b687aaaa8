/// A person's account in the embedded sandbox, to talk to the bots with. The passwords are printed at start-up:
/// sandbox accounts are throwaway and live on the loopback interface only.
public struct SandboxTestAccount: Sendable, Hashable, Codable {
    public var username: String
    public var password: String
    public var displayName: String

    /// Creates an account description.
    public init(username: String, password: String, displayName: String) {
        self.username = username
        self.password = password
        self.displayName = displayName
    }

    public static let alice = SandboxTestAccount(username: "alice", password: "alice-sandbox", displayName: "Alice")
    public static let bob = SandboxTestAccount(username: "bob", password: "bob-sandbox", displayName: "Bob")

    /// The accounts the embedded sandbox is seeded with.
    public static let defaults: [SandboxTestAccount] = [.alice, .bob]
}
