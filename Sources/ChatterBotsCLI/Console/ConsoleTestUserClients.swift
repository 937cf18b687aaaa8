import BotRuntime
import ChatterBots
import Foundation

/// The console's own signed-in devices of the sandbox test users, for what the page does besides chatting: sending
/// pictures and fetching the files of the messages it shows. One REST client per account, signed in on first use
/// and kept while the process runs (a sign-in costs a password hash on the sandbox); a failed sign-in is tried again
/// on the next use. With a device directory, each account's device id is kept in a `ChatDeviceFile` there, so the
/// console stays one such device of the user across runs instead of adding one each time.
actor ConsoleTestUserClients {
    private let server: ChatterServerConfiguration
    private let deviceDirectory: URL?
    /// How long one request of these clients may take in all, in real time.
    private let restRequestTimeouts: RESTRequestTimeouts
    private var clients: [String: Task<ChatterRESTClient, any Error>] = [:]

    init(server: ChatterServerConfiguration, deviceDirectory: URL?, restRequestTimeouts: RESTRequestTimeouts) {
        self.server = server
        self.deviceDirectory = deviceDirectory
        self.restRequestTimeouts = restRequestTimeouts
    }

    /// `account`'s signed-in client.
    ///
    /// - Throws: `ConsoleInputError` when the sandbox refuses the sign-in.
    func client(for account: SandboxTestAccount) async throws(ConsoleInputError) -> ChatterRESTClient {
        let signIn: Task<ChatterRESTClient, any Error>
        if let existing = clients[account.username] {
            signIn = existing
        } else {
            let (server, restRequestTimeouts) = (server, restRequestTimeouts)
            let deviceFile = deviceDirectory.map { ChatDeviceFile(dataDirectory: $0, username: account.username) }
            signIn = Task {
                let client = ChatterRESTClient(configuration: server, requestTimeouts: restRequestTimeouts)
                // A device file that cannot be read only costs a new device: the sign-in goes on without it. The
                // file's reads and writes run off the cooperative pool, as the chat client's do.
                let stored = await ChatClient.offThePool { (try? deviceFile?.load()) ?? nil }
                let session = try await client.login(
                    username: account.username, password: account.password, deviceId: stored,
                    device: DeviceDescription(name: "ChatterBots web console (files)", platform: "web"))
                if session.deviceId != stored {
                    let deviceId = session.deviceId
                    await ChatClient.offThePool { _ = try? deviceFile?.save(deviceId, username: account.username) }
                }
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
