import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation

/// The local Chatter server a configuration with `"server": "sandbox"` runs against, started in the bots' own
/// process: its data in `<dataDirectory>/sandbox/chatter.sqlite` (so conversations, the bots' devices and
/// reminders survive restarts), seeded with test accounts for people, the bots' own accounts, and a friendship
/// between every person and every bot (and between the people).
///
/// Seeding is done before the port accepts connections (so a client that reaches the port finds every account),
/// and is idempotent: an account that exists is kept (and checked against its password); friendships that exist
/// stay. An account that cannot be made ready is reported in `problems` rather than stopping the start:
/// the bot that needs it will stop with a clear sign-in error and the others run.
public final class EmbeddedSandbox: Sendable {
    /// The port `run` gives the embedded sandbox unless told otherwise, so that clients can find it.
    public static let defaultPort = 8960
    /// Password hashing cost of the local sandbox: far below the service's default, so start-up and sign-ins are
    /// quick; these accounts protect nothing.
    public static let passwordHashIterations = 10_000

    /// The running sandbox.
    public let sandbox: Sandbox
    /// The people's accounts, ready to sign in with.
    public let testAccounts: [SandboxTestAccount]
    /// Accounts that could not be made ready, in words (e.g. an account kept from an earlier run with another
    /// password).
    public let problems: [String]

    private init(sandbox: Sandbox, testAccounts: [SandboxTestAccount], problems: [String]) {
        self.sandbox = sandbox
        self.testAccounts = testAccounts
        self.problems = problems
    }

    /// The database file of the embedded sandbox under a data directory.
    public static func databaseURL(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("sandbox", isDirectory: true).appendingPathComponent("chatter.sqlite")
    }

    /// Starts the sandbox and seeds it.
    ///
    /// - Parameters:
    ///   - dataDirectory: where its database lives (created owner-only if missing); nil keeps it in memory.
    ///   - port: 0 lets the system choose.
    ///   - bots: the bots whose accounts are created and befriended with every test account.
    /// - Throws: `SandboxStartError` when the store cannot be opened or the port cannot be bound.
    public static func start(
        dataDirectory: URL?, host: String = "127.0.0.1", port: Int, testAccounts: [SandboxTestAccount] = SandboxTestAccount.defaults,
        bots: [BotConfiguration] = [], clock: any ChatterClock = SystemClock()
    ) async throws(SandboxStartError) -> EmbeddedSandbox {
        var storage = SandboxConfiguration.Storage.memory
        if let dataDirectory {
            let file = databaseURL(in: dataDirectory)
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw .storeUnavailable("cannot create \(file.deletingLastPathComponent().path): \(error.localizedDescription)")
            }
            storage = .file(path: file.path)
        }
        var configuration = SandboxConfiguration(storage: storage, host: host, port: port, clock: clock)
        configuration.passwordHashIterations = passwordHashIterations
        let people = testAccounts.map { Account(username: $0.username, password: $0.password, displayName: $0.displayName) }
        let botAccounts = bots.map {
            Account(username: $0.credentials.username, password: $0.credentials.password, displayName: $0.name)
        }
        // Seeded before the port opens: whoever reaches the port (a bot of another shard) finds its account.
        let (sandbox, problems) = try await Sandbox.start(configuration) { service in
            await provision(people: people, bots: botAccounts, service: service)
        }
        return EmbeddedSandbox(sandbox: sandbox, testAccounts: testAccounts, problems: problems)
    }

    /// The usernames and passwords the embedded sandbox accepts: the service's defaults (only its hashing cost is
    /// its own).
    package static let accountRules = SandboxServiceConfiguration().accountRules

    /// What the embedded sandbox would refuse of `bots`' accounts, each naming its bot and field: `check` reports
    /// it, rather than `run` finding it when the sandbox cannot create the account.
    package static func accountIssues(of bots: [BotConfiguration]) -> [ConfigurationIssue] {
        bots.flatMap { bot in
            let username = accountRules.usernameProblem(bot.credentials.username).map {
                ConfigurationIssue(bot: bot.name, field: "credentials.username",
                    message: "\"\(bot.credentials.username)\" is refused by the embedded sandbox: \($0)")
            }
            let password = accountRules.passwordProblem(bot.credentials.password).map {
                ConfigurationIssue(bot: bot.name, field: "credentials.password", message: "is refused by the embedded sandbox: \($0)")
            }
            return [username, password].compactMap { $0 }
        }
    }

    /// Makes the accounts of `bots` ready (created, or checked against their password) and friends with every test
    /// account, for bots a reload adds or whose credentials it changes; returns what could not be done.
    package func provision(bots: [BotConfiguration]) async -> [String] {
        let people = testAccounts.map { Account(username: $0.username, password: $0.password, displayName: $0.displayName) }
        let botAccounts = bots.map {
            Account(username: $0.credentials.username, password: $0.credentials.password, displayName: $0.name)
        }
        return await Self.provision(people: people, bots: botAccounts, service: sandbox.service)
    }

    /// Stops the sandbox (sockets closed with 1001, database closed).
    public func shutdown() async {
        await sandbox.shutdown()
    }

    private struct Account {
        var username: String
        var password: String
        var displayName: String
    }

    /// Makes every account ready and the friendships exist; returns what could not be done.
    private static func provision(people: [Account], bots: [Account], service: ChatterService) async -> [String] {
        var problems: [String] = []
        var peopleIds: [User.ID] = []
        var botIds: [User.ID] = []
        for (account, isBot) in people.map({ ($0, false) }) + bots.map({ ($0, true) }) {
            switch await ensure(account, service: service) {
            case .success(let id): if isBot { botIds.append(id) } else { peopleIds.append(id) }
            case .failure(let problem): problems.append(problem.text)
            }
        }
        var pairs: [(User.ID, User.ID)] = []
        for (index, person) in peopleIds.enumerated() {
            pairs += peopleIds[(index + 1)...].map { (person, $0) }
            pairs += botIds.map { (person, $0) }
        }
        for (first, second) in pairs where first != second {
            do {
                try await service.makeFriends(first, second)
            } catch {
                problems.append("could not make \(first) and \(second) friends: \(error.code): \(error.message)")
            }
        }
        return problems
    }

    private struct Problem: Error {
        var text: String
    }

    /// The account's user id: created now, or kept from an earlier run after checking its password.
    private static func ensure(_ account: Account, service: ChatterService) async -> Result<User.ID, Problem> {
        let creationError: ChatterErrorBody
        do {
            return .success(try await service.createUser(
                username: account.username, password: account.password, displayName: account.displayName
            ).id)
        } catch {
            creationError = error
        }
        // Refused for what the account is, not because it exists: a sign-in could only fail, and blame a password kept
        // from an earlier run.
        let rules = service.configuration.accountRules
        if creationError.code == .validationFailed,
            rules.usernameProblem(account.username) != nil || rules.passwordProblem(account.password) != nil
        {
            return .failure(Problem(text: "the sandbox account \"\(account.username)\" cannot be created: "
                + "\(creationError.code): \(creationError.message)"))
        }
        // Most likely the account exists from an earlier run: sign in once to learn its id and check the password,
        // then sign that device out again.
        do {
            let session = try await service.login(LoginBody(
                username: account.username, password: account.password,
                device: DeviceDescription(name: "sandbox-seeding", platform: "sandbox")))
            try? await service.logout(SandboxCaller(userId: session.user.id, deviceId: session.deviceId))
            return .success(session.user.id)
        } catch where error.code == .invalidCredentials {
            return .failure(Problem(text:
                "the sandbox account \"\(account.username)\" exists with another password (kept from an earlier run); "
                + "use its old password or delete the sandbox's data to start afresh"))
        } catch {
            return .failure(Problem(text:
                "the sandbox account \"\(account.username)\" could not be created: \(creationError.code): \(creationError.message)"))
        }
    }
}
