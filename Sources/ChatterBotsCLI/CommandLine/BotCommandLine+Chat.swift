import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation

extension BotCommandLine {
    /// The environment variable `chat` reads the password from when `--password` is not given, so that a real
    /// account's password stays out of the shell's history.
    public static let chatPasswordVariable = "CHATTER_PASSWORD"

    /// Where `chat` connects, and where it keeps its device file.
    struct ChatTarget {
        var server: ChatterServerConfiguration
        var dataDirectory: URL
        /// Whether the sandbox test accounts' passwords may be assumed.
        var isSandbox: Bool
    }

    /// `chat`: the terminal client (`ChatClient`) on standard input and output, until `/quit` or Ctrl-D.
    func chat(_ options: BotCommand.ChatOptions, in environment: CommandEnvironment) async -> ExitCode {
        guard let target = chatTarget(options, in: environment) else { return .usageError }
        let testPassword = target.isSandbox
            ? SandboxTestAccount.defaults.first { $0.username.lowercased() == options.username.lowercased() }?.password : nil
        let variable = environment.variables[Self.chatPasswordVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let password = options.password ?? variable ?? testPassword else {
            environment.standardError.write(line: "\(programName): chat needs --password for \(options.username), or "
                + "\(Self.chatPasswordVariable) in the environment (only the sandbox test accounts "
                + "\(SandboxTestAccount.defaults.map(\.username).joined(separator: ", ")) have known passwords)")
            return .usageError
        }
        var configuration = ChatClientConfiguration(
            server: target.server, username: options.username, password: password, dataDirectory: target.dataDirectory)
        configuration.restRequestTimeouts = environment.restRequestTimeouts
        let style = environment.standardOutputStyle
        let output = environment.standardOutput
        output.write(line: style.render(ScreenLine(
            "Chatting as \(options.username) on \(target.server.apiBaseURL.absoluteString): /help for the commands, /quit or Ctrl-D to leave.",
            tone: .status)))
        do throws(ChatClientError) {
            try await ChatClient(configuration: configuration).run(input: environment.standardInput()) { lines in
                for line in lines { output.write(line: style.render(line)) }
            }
            return .success
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            switch error {
            case .invalidCredentials, .clientKeyRejected: return .usageError
            case .serverUnreachable, .signInFailed, .sessionRevoked, .signedOut, .messagesNotAcknowledged: return .failure
            }
        }
    }

    /// The server and data directory of `chat`'s options; nil after printing why there are none.
    func chatTarget(_ options: BotCommand.ChatOptions, in environment: CommandEnvironment) -> ChatTarget? {
        let sandboxKey = SandboxClientCredential.sandbox.clientKey
        let explicitData = options.dataDirectory.map { environment.resolve($0) }
        if let apiText = options.apiURL {
            guard let api = URL(string: apiText), let scheme = api.scheme?.lowercased(), ["http", "https"].contains(scheme),
                api.host?.isEmpty == false
            else {
                environment.standardError.write(line: "\(programName): --api must be an http(s):// URL with a host, found \"\(apiText)\"")
                return nil
            }
            let webSocket: URL
            if let wsText = options.webSocketURL {
                guard let url = URL(string: wsText), let wsScheme = url.scheme?.lowercased(), ["ws", "wss"].contains(wsScheme) else {
                    environment.standardError.write(line: "\(programName): --ws must be a ws:// or wss:// URL, found \"\(wsText)\"")
                    return nil
                }
                webSocket = url
            } else {
                var components = URLComponents(url: api.appendingPathComponent("ws"), resolvingAgainstBaseURL: false)
                components?.scheme = scheme == "https" ? "wss" : "ws"
                guard let derived = components?.url else {
                    environment.standardError.write(line: "\(programName): no realtime URL follows from \(apiText); give --ws")
                    return nil
                }
                webSocket = derived
            }
            let key = options.clientKey ?? sandboxKey
            return ChatTarget(
                server: ChatterServerConfiguration(apiBaseURL: api, webSocketURL: webSocket, clientKey: key),
                dataDirectory: explicitData ?? environment.resolve(BotsConfiguration.defaultDataDirectory),
                isSandbox: key == sandboxKey)
        }

        let url = configurationURL(options.configuration, in: environment)
        var server = BotsConfiguration.Server.sandbox
        var dataDirectory = environment.resolve(BotsConfiguration.defaultDataDirectory)
        if FileManager.default.fileExists(atPath: url.path) {
            // Only the server and the data directory matter here: the bots' own settings (and the environment
            // variables their passwords come from) are `run`'s business.
            var validator = BotsConfigurationValidator(
                environment: environment.variables, baseDirectory: url.deletingLastPathComponent())
            do {
                let file = try BotsFile(json: try Data(contentsOf: url))
                let resolvedServer = validator.server(file.server)
                let resolvedData = validator.dataDirectory(file.dataDirectory, baseDirectory: url.deletingLastPathComponent())
                guard validator.errors.isEmpty, let resolvedServer, let resolvedData else {
                    throw ConfigurationError(issues: validator.errors, file: url.path)
                }
                server = resolvedServer
                dataDirectory = resolvedData
            } catch var error as ConfigurationError {
                if error.file == nil { error.file = url.path }
                environment.standardError.write(line: "\(programName): \(error)")
                return nil
            } catch {
                environment.standardError.write(line: "\(programName): cannot read \(url.path): \(error.localizedDescription)")
                return nil
            }
        } else if options.configuration != nil {
            environment.standardError.write(line: "\(programName): no configuration at \(url.path); check the path given to --config")
            return nil
        }
        switch server {
        case .sandbox:
            let port = options.sandboxPort ?? EmbeddedSandbox.defaultPort
            guard let api = URL(string: "http://127.0.0.1:\(port)/v1"), let ws = URL(string: "ws://127.0.0.1:\(port)/v1/ws") else {
                return nil
            }
            return ChatTarget(
                server: ChatterServerConfiguration(apiBaseURL: api, webSocketURL: ws, clientKey: sandboxKey),
                dataDirectory: explicitData ?? dataDirectory, isSandbox: true)
        case .remote(let api, let ws, let key):
            return ChatTarget(
                server: ChatterServerConfiguration(apiBaseURL: api, webSocketURL: ws, clientKey: key),
                dataDirectory: explicitData ?? dataDirectory, isSandbox: key == sandboxKey)
        }
    }
}
