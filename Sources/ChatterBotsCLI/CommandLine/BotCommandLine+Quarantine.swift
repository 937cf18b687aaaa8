import BotRuntime
import Foundation

extension BotCommandLine {
    /// What one `quarantine` command did, whichever way it went (through the running process or on the stores).
    enum QuarantineResult {
        case listed([BotQuarantineEntry])
        case retried(QuarantineRetryOutcome)
        case dropped(QuarantineReference)
    }

    /// `quarantine list|retry|drop`: through the HTTP port of the `run` process named in the data directory's
    /// `control.json` when it answers, else on the bots' store files, which it refuses while a process has them.
    func quarantine(_ options: BotCommand.QuarantineOptions, in environment: CommandEnvironment) async -> ExitCode {
        guard let (dataDirectory, bots) = quarantineTarget(options.configuration, in: environment) else { return .usageError }
        var unanswered: [String] = []
        let token: String?
        do {
            token = try ControlAccess.token(in: environment.variables)
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            return .usageError
        }
        // Every process using the data directory: one, or one per shard (each answers for its own bots).
        var answers: [QuarantineResult] = []
        var refusals: [String] = []
        for (directory, control) in ControlFile.all(in: dataDirectory) {
            let client = ControlClient(control: control, token: token)
            do throws(ControlClient.Failure) {
                answers.append(try await perform(options.action, through: client))
            } catch {
                switch error {
                case .refused(let status, let message):
                    // Another shard's process does not know the bot: the one that runs it answers.
                    if status == 404, message.hasPrefix("no bot named") { continue }
                    refusals.append(message)
                case .unreachable(let reason):
                    unanswered.append("the process \(control.pid) of \(ControlFile.url(in: directory).path) did not answer "
                        + "at http://\(control.host):\(control.httpPort) (\(reason))")
                case .timedOut(let after):
                    unanswered.append("the process \(control.pid) of \(ControlFile.url(in: directory).path) did not answer "
                        + "at http://\(control.host):\(control.httpPort) within \(after.components.seconds) s")
                }
            }
        }
        if let refusal = refusals.first {
            environment.standardError.write(line: "\(programName): \(refusal)")
            return .failure
        }
        if let merged = Self.merged(answers) {
            show(merged, options: options, in: environment)
            return .success
        }
        let offline = OfflineQuarantine(dataDirectory: dataDirectory, bots: bots, clock: environment.clock)
        do throws(QuarantineControlError) {
            show(try await perform(options.action, on: offline), options: options, in: environment)
            return .success
        } catch {
            let context = unanswered.map { "\($0); " }.joined()
            environment.standardError.write(line: "\(programName): \(context)\(error)")
            return .failure
        }
    }

    /// The processes' answers as one: the lists joined, else the one process that knew the bot.
    static func merged(_ answers: [QuarantineResult]) -> QuarantineResult? {
        guard let first = answers.first else { return nil }
        guard case .listed = first else { return first }
        return .listed(answers.flatMap { answer -> [BotQuarantineEntry] in
            if case .listed(let entries) = answer { return entries }
            return []
        })
    }

    private func perform(
        _ action: BotCommand.QuarantineOptions.Action, through client: ControlClient
    ) async throws(ControlClient.Failure) -> QuarantineResult {
        switch action {
        case .list(let bot): return .listed(try await client.list(bot: bot))
        case .retry(let bot, let id): return .retried(try await client.retry(QuarantineReference(bot: bot, id: id)))
        case .drop(let bot, let id):
            let reference = QuarantineReference(bot: bot, id: id)
            try await client.drop(reference)
            return .dropped(reference)
        }
    }

    private func perform(
        _ action: BotCommand.QuarantineOptions.Action, on offline: OfflineQuarantine
    ) async throws(QuarantineControlError) -> QuarantineResult {
        switch action {
        case .list(let bot): return .listed(try await offline.list(bot: bot))
        case .retry(let bot, let id): return .retried(try await offline.retry(QuarantineReference(bot: bot, id: id)))
        case .drop(let bot, let id):
            let reference = QuarantineReference(bot: bot, id: id)
            try await offline.drop(reference)
            return .dropped(reference)
        }
    }

    private func show(_ result: QuarantineResult, options: BotCommand.QuarantineOptions, in environment: CommandEnvironment) {
        let text: String
        switch result {
        case .listed(let entries):
            if options.json {
                text = String(decoding: QuarantineJSON.encode(QuarantineJSON.Listing(entries: entries)), as: UTF8.self)
            } else {
                guard case .list(let bot) = options.action else { return }
                text = QuarantineText.table(entries, bot: bot)
            }
        case .retried(let outcome):
            text = options.json ? String(decoding: QuarantineJSON.encode(outcome), as: UTF8.self) : QuarantineText.retried(outcome)
        case .dropped(let reference):
            text = options.json
                ? String(decoding: QuarantineJSON.encode(QuarantineJSON.Dropped(reference)), as: UTF8.self)
                : QuarantineText.dropped(reference)
        }
        environment.standardOutput.write(line: text)
    }

    /// The data directory and the bots' names of the configuration, or nil after printing why there are none.
    /// Only these are read (not the passwords), so the commands work without the bots' environment.
    func quarantineTarget(_ path: String?, in environment: CommandEnvironment) -> (URL, [String])? {
        let url = configurationURL(path, in: environment)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            let advice = path == nil
                ? "run from the directory of your bots.json, or pass --config FILE"
                : "check the path given to --config"
            environment.standardError.write(line: "\(programName): no configuration at \(url.path); \(advice)")
            return nil
        }
        do throws(ConfigurationError) {
            let file = try BotsFile(json: data)
            var validator = BotsConfigurationValidator(
                environment: environment.variables, baseDirectory: url.deletingLastPathComponent())
            guard let directory = validator.dataDirectory(file.dataDirectory, baseDirectory: url.deletingLastPathComponent()) else {
                throw ConfigurationError(issues: validator.errors)
            }
            return (directory, file.bots.map(\.name))
        } catch {
            var error = error
            if error.file == nil { error.file = url.path }
            environment.standardError.write(line: "\(programName): \(error)")
            return nil
        }
    }
}
