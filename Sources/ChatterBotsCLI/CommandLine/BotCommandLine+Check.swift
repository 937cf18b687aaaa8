import BotRuntime
import ChatterBots
import Foundation

extension BotCommandLine {
    /// `check`: validates the configuration and prints what `run` would start; connects to nothing. With `shards`,
    /// also each shard's bots, and with `from`, the bots that move when the count goes from `from` to `shards`.
    func check(
        configuration path: String?, shards: Int? = nil, from: Int? = nil, in environment: CommandEnvironment
    ) async -> ExitCode {
        // The embedded sandbox's rules for accounts, reported with every other problem of the file.
        let sandboxAccounts = { (configuration: BotsConfiguration) -> [ConfigurationIssue] in
            guard case .sandbox = configuration.server else { return [] }
            return EmbeddedSandbox.accountIssues(of: configuration.bots)
        }
        guard let (configuration, lineup) = loadLineup(path, in: environment, makingBots: true, problems: sandboxAccounts) else { return .usageError }
        let url = configurationURL(path, in: environment)
        var lines = ["\(url.path) is valid: \(lineup.members.count) bot\(lineup.members.count == 1 ? "" : "s")."]
        switch configuration.server {
        case .sandbox:
            let people = SandboxTestAccount.defaults.map(\.username).joined(separator: ", ")
            lines.append("Server: the embedded sandbox, started by `run` (test accounts \(people)).")
        case .remote(let apiURL, let webSocketURL, _):
            lines.append("Server: \(apiURL.absoluteString) (realtime \(webSocketURL.absoluteString)).")
        }
        lines.append("Data directory: \(configuration.dataDirectory.path)")
        lines.append("Log level: \(configuration.logLevel.rawValue)")
        lines.append(configuration.httpPort.map { "Health and metrics: /healthz and /metrics on port \($0)." }
            ?? "Health and metrics: off (set httpPort to serve /healthz and /metrics).")
        if configuration.httpPort != nil {
            lines.append(configuration.readinessTimeout.map {
                "Readiness: /readyz waits at most \($0.components.seconds) s for the bots of the start to be live."
            } ?? "Readiness: /readyz waits for every bot of the start to be live (readinessTimeoutSeconds bounds it).")
        }
        lines.append("Bots:")
        let nameWidth = lineup.members.map(\.configuration.name.count).max() ?? 0
        for member in lineup.members {
            let bot = member.configuration
            let padding = String(repeating: " ", count: nameWidth - bot.name.count)
            lines.append(
                "  \(bot.name)\(padding)  kind \(bot.kind), account \(bot.credentials.username), "
                    + "friend requests: \(Self.describe(bot.friendRequests))")
        }
        if let shards {
            lines += Self.shardReport(bots: lineup.members.map(\.configuration.name), shards: shards, from: from)
        }
        for warning in configuration.warnings {
            lines.append("Warning: \(warning)")
        }
        if let warning = Self.controlTokenWarning(configuration, variables: environment.variables) {
            lines.append("Warning: \(warning)")
        }
        environment.standardOutput.write(line: lines.joined(separator: "\n"))
        return .success
    }

    /// What `run` would refuse of the control token, as far as this environment tells (`controlAccess(bind:in:)`):
    /// off loopback the HTTP port needs a token, and a token file must be readable. A warning, not an error: `run`
    /// reads the token from its own environment, which may hold what this one does not.
    static func controlTokenWarning(_ configuration: BotsConfiguration, variables: [String: String]) -> String? {
        guard configuration.httpPort != nil else { return nil }
        let token: String?
        do {
            token = try ControlAccess.token(in: variables)
        } catch {
            return "\(error): run refuses to serve httpPort unless the file it names can be read where it runs"
        }
        guard token == nil, !ControlAccess.isLoopback(configuration.httpBind) else { return nil }
        return "httpBind: is \(configuration.httpBind), off loopback, so run refuses to serve httpPort unless "
            + "\(ControlAccess.tokenVariable) (or \(ControlAccess.tokenFileVariable)) is set where it runs, to a secret "
            + "token that control requests must carry; it is not set here (or bind to 127.0.0.1)"
    }

    static func describe(_ policy: FriendRequestPolicy) -> String {
        switch policy {
        case .everyone: "everyone"
        case .nobody: "nobody"
        case .allowlist(let names): "only " + names.sorted().joined(separator: ", ")
        }
    }
}
