import BotRuntime
import ChatterBots
import Foundation

extension BotCommandLine {
    /// How often `say` looks for the reply.
    static let replyPollInterval: Duration = .milliseconds(200)

    /// `say`: signs in as a person, sends one message in the direct conversation with the recipient, prints the
    /// recipient's reply, and signs that device out again.
    func say(_ options: BotCommand.SayOptions, in environment: CommandEnvironment) async -> ExitCode {
        let serverText = options.server ?? "http://127.0.0.1:\(EmbeddedSandbox.defaultPort)/v1"
        guard let apiURL = URL(string: serverText), let scheme = apiURL.scheme, ["http", "https"].contains(scheme) else {
            environment.standardError.write(line: "\(programName): --server must be an http(s):// URL, found \"\(serverText)\"")
            return .usageError
        }
        let knownPassword = SandboxTestAccount.defaults.first { $0.username.lowercased() == options.sender.lowercased() }?.password
        guard let password = options.password ?? knownPassword else {
            environment.standardError.write(line: "\(programName): say needs --password for \(options.sender) "
                + "(only the sandbox test accounts \(SandboxTestAccount.defaults.map(\.username).joined(separator: ", ")) have known passwords)")
            return .usageError
        }
        let server = ChatterServerConfiguration(
            apiBaseURL: apiURL, webSocketURL: apiURL.appendingPathComponent("ws"), clientKey: options.clientKey ?? "ck_sandbox")
        let client = ChatterRESTClient(configuration: server, requestTimeouts: environment.restRequestTimeouts)
        do {
            _ = try await client.login(
                username: options.sender, password: password, deviceId: nil,
                device: DeviceDescription(name: "\(programName) say", platform: "cli"))
        } catch {
            environment.standardError.write(line: "\(programName): cannot sign in as \(options.sender) on \(serverText): "
                + Self.describe(error, server: serverText))
            return .failure
        }
        let code = await converse(options, client: client, environment: environment)
        try? await client.logout()
        return code
    }

    private func converse(
        _ options: BotCommand.SayOptions, client: ChatterRESTClient, environment: CommandEnvironment
    ) async -> ExitCode {
        let recipient: User
        let conversation: Conversation
        let sent: Message
        do {
            let matches = try await client.users(username: options.recipient)
            guard let user = matches.first(where: { $0.username.lowercased() == options.recipient.lowercased() }) else {
                environment.standardError.write(line: "\(programName): there is no user \(options.recipient)")
                return .failure
            }
            recipient = user
            conversation = try await client.directConversation(with: user.id)
            sent = try await client.postMessage(.text(options.text), clientMessageId: .random(), in: conversation.id)
        } catch {
            environment.standardError.write(line: "\(programName): cannot send to \(options.recipient): "
                + Self.describe(error, server: client.configuration.apiBaseURL.absoluteString))
            return .failure
        }
        environment.standardOutput.write(line: "\(options.sender): \(options.text)")
        guard options.wait > .zero else { return .success }

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: options.wait)
        while clock.now < deadline {
            if let page = try? await client.messages(in: conversation.id, afterSeq: sent.seq) {
                let replies = page.messages.filter { $0.senderId == recipient.id }
                if !replies.isEmpty {
                    for reply in replies {
                        environment.standardOutput.write(line: "\(recipient.username): \(reply.body ?? "(\(reply.kind.rawValue))")")
                    }
                    return .success
                }
            }
            do {
                try await Task.sleep(for: Self.replyPollInterval)
            } catch {
                return .failure
            }
        }
        environment.standardError.write(line: "\(programName): no reply from \(recipient.username) within "
            + "\(options.wait.components.seconds) s; is `\(programName) run` running with that bot?")
        return .failure
    }

    /// An error of the REST client in words, with a hint when the server is simply not there.
    static func describe(_ error: any Error, server: String) -> String {
        switch error {
        case let error as ChatterAPIError:
            return "\(error.code.rawValue): \(error.message)"
        case ChatterClientError.transport(_, let description):
            return "\(description) (is `run` or `sandbox` running at \(server)?)"
        default:
            return "\(error)"
        }
    }
}
