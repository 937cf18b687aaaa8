import BotRuntime
import ChatterBots
import ChatterSandbox
import Foundation
import WebSocket

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
        var console: HTTPServer?
        if let port = options.consolePort {
            switch await startConsole(
                of: sandbox, port: port, bind: options.consoleBind ?? "127.0.0.1", dataDirectory: dataDirectory, in: environment) {
            case .success(let started): console = started
            case .failure(let exit):
                await sandbox.shutdown()
                return exit.code
            }
        }
        let storage = dataDirectory.map { EmbeddedSandbox.databaseURL(in: $0).path } ?? "memory (gone when it stops; --data DIR keeps it)"
        let people = sandbox.testAccounts.map { "\($0.username) (password \($0.password))" }
        environment.standardOutput.write(line: """
            Chatter sandbox listening on \(server.apiURL.absoluteString)
            Realtime: \(server.webSocketURL.absoluteString); admin routes: \(server.adminURL.absoluteString)/
            Client key \(server.clientKey) (secret \(server.clientSecret), for the admin routes); data in \(storage)
            Test accounts: \(people.joined(separator: ", "))
            """)
        if let console {
            let address = Self.httpURL(bind: options.consoleBind ?? "127.0.0.1", port: console.port, path: "/console/")
            environment.standardOutput.write(line: "Console: \(address)")
        }
        environment.standardOutput.write(line: "Ctrl-C stops it.")
        await environment.standardOutput.flush()
        await environment.shutdown.wait()
        await console?.shutdown()
        await sandbox.shutdown()
        log.log(.info, "sandbox stopped")
        return .success
    }

    private struct ConsoleExit: Error {
        var code: ExitCode
    }

    /// The sandbox's part of the web console on `bind:port`: the chat as the test accounts and the faults, with no
    /// fleet (this process runs no bots). Every other path of the port is 404.
    private func startConsole(
        of sandbox: EmbeddedSandbox, port: Int, bind: String, dataDirectory: URL?, in environment: CommandEnvironment
    ) async -> Result<HTTPServer, ConsoleExit> {
        guard let access = controlAccess(bind: bind, in: environment) else { return .failure(ConsoleExit(code: .usageError)) }
        let directory = SandboxDirectory(sandbox: sandbox.sandbox, testAccounts: sandbox.testAccounts)
        let routes = ConsoleRoutes(
            supervisor: nil, access: ConsoleAccess(control: access), bind: bind,
            faults: EmbeddedSandboxFaults(sandbox: sandbox.sandbox), faultTargets: directory,
            extensions: [ConsoleChatRoutes(
                server: sandbox.sandbox.serverConfiguration, accounts: sandbox.testAccounts, dataDirectory: dataDirectory,
                restRequestTimeouts: environment.restRequestTimeouts, bots: { await directory.friendsOfTestAccounts() })])
        do {
            let server = try await HTTPServer.start(host: bind, port: port) { request in
                if ConsoleRoutes.owns(request.path) { return await routes.respond(to: request) }
                return .response(HTTPResponse(status: .notFound, text: "This port serves the sandbox's console at /console/.\n"))
            }
            routes.serve(onPort: server.port)
            return .success(server)
        } catch {
            var inUse = false
            if case .cannotListen(_, let code) = error { inUse = code == EADDRINUSE }
            environment.standardError.write(line: "\(programName): the console could not start: \(error)"
                + (inUse ? "; pass --console-port with another port, or 0 for any free one" : ""))
            return .failure(ConsoleExit(code: .failure))
        }
    }
}
