import BotRuntime
import ChatterBots
import ChatterSandbox

/// The people a running sandbox's console deals with, by username: the test accounts' friends (whom the chat offers
/// to talk to), who is connected now (whom a fault can hit), and a username's user id. Read from the sandbox at each
/// question, so accounts and friendships made since start-up are seen.
struct SandboxDirectory: ConsoleFaultTargets {
    let sandbox: Sandbox
    let testAccounts: [SandboxTestAccount]

    /// Every friend of a test account (the other test accounts, and the bots befriended with them), by username.
    func friendsOfTestAccounts() async -> [ConsoleChatRoutes.Bot] {
        var friends: [String: ConsoleChatRoutes.Bot] = [:]
        for account in testAccounts {
            guard let id = try? await userId(ofUsername: account.username),
                  let list = try? await sandbox.service.friends(Self.caller(id))
            else { continue }
            for friend in list.friends {
                friends[friend.user.username] = ConsoleChatRoutes.Bot(name: friend.user.displayName, username: friend.user.username)
            }
        }
        return friends.values.sorted { $0.username < $1.username }
    }

    func connectedUsernames() async -> [String] {
        var names = Set(testAccounts.map(\.username))
        names.formUnion(await friendsOfTestAccounts().map(\.username))
        var connected: [String] = []
        for name in names {
            guard let id = try? await userId(ofUsername: name), await sandbox.hub.isOnline(id) else { continue }
            connected.append(name)
        }
        return connected.sorted()
    }

    func userId(ofUsername username: String) async throws(ConsoleInputError) -> User.ID {
        let found: UserList
        do {
            // The lookup needs no particular caller: any id will do for the sandbox's own question.
            found = try await sandbox.service.searchUsers(Self.caller(User.ID("console")), username: username)
        } catch {
            throw ConsoleInputError("the sandbox cannot look up \(username): \(error.message)")
        }
        guard let user = found.users.first else { throw ConsoleInputError("the sandbox has no user \(username)") }
        return user.id
    }

    private static func caller(_ userId: User.ID) -> SandboxCaller {
        SandboxCaller(userId: userId, deviceId: Device.ID("console"))
    }
}
