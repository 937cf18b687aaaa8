import BotRuntime
import Foundation

extension BotCommandLine {
    /// `reload`: asks every `run` process of the configuration (each shard's, found by its `control.json`) to read
    /// `bots.json` again, and prints what each did. Succeeds when every process answered and applied it.
    func reload(configuration path: String?, in environment: CommandEnvironment) async -> ExitCode {
        guard let (dataDirectory, _) = quarantineTarget(path, in: environment) else { return .usageError }
        let token: String?
        do {
            token = try ControlAccess.token(in: environment.variables)
        } catch {
            environment.standardError.write(line: "\(programName): \(error)")
            return .usageError
        }
        let processes = ControlFile.all(in: dataDirectory)
        guard !processes.isEmpty else {
            environment.standardError.write(line: "\(programName): no running process of this configuration was found "
                + "(no control.json in \(dataDirectory.path)): start `\(programName) run` with httpPort set, or send it SIGHUP")
            return .failure
        }
        var allApplied = true
        for (directory, control) in processes {
            let client = ControlClient(control: control, token: token)
            let label = processes.count == 1 ? "" : "\(directory.lastPathComponent): "
            do throws(ControlClient.Failure) {
                let report = try await client.reload()
                if report.applied {
                    environment.standardOutput.write(line: label + report.summary)
                } else {
                    environment.standardError.write(line: "\(programName): \(label)\(report.summary)")
                    allApplied = false
                }
            } catch {
                switch error {
                case .refused(_, let message):
                    environment.standardError.write(line: "\(programName): \(label)\(message)")
                case .unreachable(let reason):
                    environment.standardError.write(line: "\(programName): the process \(control.pid) of "
                        + "\(ControlFile.url(in: directory).path) did not answer at http://\(control.host):\(control.httpPort) (\(reason))")
                case .timedOut(let after):
                    environment.standardError.write(line: "\(programName): \(label)\(Self.reloadStillRunning(pid: control.pid, after: after))")
                }
                allApplied = false
            }
        }
        return allApplied ? .success : .failure
    }

    /// What `reload` says of a process that has not answered in time: the reload may still be stopping bots.
    static func reloadStillRunning(pid: Int32, after: Duration) -> String {
        "the process \(pid) has not answered the reload within \(after.components.seconds) s: it is still running; "
            + "check /healthz's configuration generation to see when it is applied"
    }
}
