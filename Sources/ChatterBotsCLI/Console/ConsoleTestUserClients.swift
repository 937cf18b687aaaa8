import BotRuntime
import ChatterBots
import Foundation

/// The console's own signed-in devices of the sandbox test users, for what the page does besides chatting: sending
/// pictures and fetching the files of the messages it shows. One REST client per account, signed in on first use
/// and kept while the process runs (a sign-in costs a password hash on the sandbox); a failed sign-in is tried again
/// on the next use.
actor ConsoleTestUserClients {
    private let server: ChatterServerConfiguration
    private var clients: [String: Task<ChatterRESTClient, any Error>] = [:]

    init(server: ChatterServerConfiguration) {
        self.server = server
    }

    /// `account`'s signed-in client.
    ///
    /// - Throws: `ConsoleInputError` when the sandbox refuses the sign-in.
    func client(for account: SandboxTestAccount) async throws(ConsoleInputError) -> ChatterRESTClient {
        let signIn: Task<ChatterRESTClient, any Error>
        if let existing = clients[account.username] {
            signIn = existing
        } else {
            let server = server
            signIn = Task {
                let client = ChatterRESTClient(configuration: server)
                _ = try await client.login(
                    username: account.username, password: account.password, deviceId: nil,
                    device: DeviceDescription(name: "ChatterBots web console", platform: "web"))
                return client
            }
            clients[account.username] = signIn
        }
        do {
            return try await signIn.value
        } catch {
            if clients[account.username] == signIn { clients[account.username] = nil }
            throw ConsoleInputError("cannot sign in as \(account.username) on the sandbox: \(error)")
        }
    }
}
