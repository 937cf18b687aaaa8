import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation

extension BotCommandLine {
    /// `sandbox`: the local Chatter server alone, seeded with the test accounts, until a shutdown request.
    func runSandbox(_ options: BotCommand.SandboxOptions, in environment: CommandEnvironment) async -> ExitCode {
        let log = LogSink(minimumLevel: .info, output: environment.standardError)
        let signals = watchSignals(in: environment, log: log)
        defer { signals?.cancel() }
        let dataDirectory = options.dataDirectory.map { environment.resolve($0) }
        let sandbox: EmbeddedSandbox
        do {
            sandbox = try await EmbeddedSandbox.start(
                dataDirectory: dataDirectory, port: options.port ?? EmbeddedSandbox.defaultPort, clock: environment.clock)
        } catch {
            environment.standardError.write(line: "\(programName): the sandbox could not start: \(error)"
                + (Self.isPortInUse(error) ? "; pass --port with another port, or 0 for any free one" : ""))
            return .failure
        }
        for problem in sandbox.problems { log.log(.warning, "sandbox: \(problem)") }
        let server = sandbox.sandbox
        let storage = dataDirectory.map { EmbeddedSandbox.databaseURL(in: $0).path } ?? "memory (gone when it stops; --data DIR keeps it)"
        let people = sandbox.testAccounts.map { "\($0.username) (password \($0.password))" }
        environment.standardOutput.write(line: """
            Chatter sandbox listening on \(server.apiURL.absoluteString)
            Realtime: \(server.webSocketURL.absoluteString); admin routes: \(server.adminURL.absoluteString)/
            Client key \(server.clientKey) (secret \(server.clientSecret), for the admin routes); data in \(storage)
            Test accounts: \(people.joined(separator: ", "))
            Ctrl-C stops it.
            """)
        await environment.standardOutput.flush()
        await environment.shutdown.wait()
        await sandbox.shutdown()
        log.log(.info, "sandbox stopped")
        return .success
    }
}
