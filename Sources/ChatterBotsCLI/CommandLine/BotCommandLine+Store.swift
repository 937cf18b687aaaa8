import BotRuntime
import Foundation

extension BotCommandLine {
    /// `export BOT --to FILE`: copies the stopped bot's store to FILE and marks it as moved (`StoreTransfer`).
    func export(
        bot: String, to file: String, configuration: String?, dataDirectory: String?, in environment: CommandEnvironment
    ) async -> ExitCode {
        guard let directory = storeDirectory(configuration: configuration, dataDirectory: dataDirectory, in: environment) else {
            return .usageError
        }
        do {
            let summary = try await StoreTransfer.export(bot: bot, dataDirectory: directory, to: environment.resolve(file))
            environment.standardOutput.write(line: """
                Exported bot \(summary.bot) (\(Self.describe(summary))) to \(summary.path).
                Its store in \(directory.path) is marked as moved: the bot no longer starts there.
                Next: `\(programName) import \(summary.path)` where the bot runs now, then start it there.
                """)
            return .success
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            return .failure
        }
    }

    /// `import FILE [--as BOT]`: puts an exported store into the data directory as the bot's store.
    func importStore(
        _ file: String, as bot: String?, configuration: String?, dataDirectory: String?, in environment: CommandEnvironment
    ) async -> ExitCode {
        guard let directory = storeDirectory(configuration: configuration, dataDirectory: dataDirectory, in: environment) else {
            return .usageError
        }
        do {
            let summary = try await StoreTransfer.importStore(from: environment.resolve(file), into: directory, as: bot)
            environment.standardOutput.write(line: """
                Imported bot \(summary.bot) (\(Self.describe(summary))) into \(summary.path).
                It is the same device: start it with `\(programName) run` on this data directory.
                """)
            return .success
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            return .failure
        }
    }

    /// `--data DIR`, else the data directory of the configuration (nil after printing why it cannot be loaded).
    private func storeDirectory(configuration: String?, dataDirectory: String?, in environment: CommandEnvironment) -> URL? {
        if let dataDirectory { return environment.resolve(dataDirectory) }
        return loadLineup(configuration, in: environment)?.0.dataDirectory
    }

    private static func describe(_ summary: StoreTransfer.Summary) -> String {
        let device = summary.deviceId.map { "user \(summary.userId ?? "?"), device \($0)" } ?? "not signed in yet"
        return "\(device), \(summary.pendingOutbox) outbox entr\(summary.pendingOutbox == 1 ? "y" : "ies") pending"
    }
}
