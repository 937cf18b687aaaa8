import ChatterBots
import Foundation

/// The rule of a reload: given the configuration in force and the newly validated one, either the `FleetChange`
/// to carry out or why the reload is refused as a whole. What the process set up at start (the server and its
/// embedded sandbox, the data directory, the HTTP port and address, the quarantine settings, the log level, the
/// console, the bound of `/readyz`'s wait for the bots of the start) is not changed by a reload: a new file that
/// changes any of it is refused, naming each field, and the running fleet is untouched; restarting the process
/// applies it. With shards, only the bots this shard runs count.
package enum ConfigurationReload: Sendable, Equatable {
    /// Carry out this change.
    case apply(FleetChange)
    /// Change nothing: these fields need a restart of the process.
    case refused([ConfigurationIssue])

    /// `stopped` names the running process's bots that stopped on their own (they start again).
    package init(from current: BotsConfiguration, to next: BotsConfiguration, shard: Shard?, stopped: Set<String> = []) {
        var issues: [ConfigurationIssue] = []
        func needsRestart(_ field: String, _ changed: Bool) {
            if changed {
                issues.append(ConfigurationIssue(
                    field: field, message: "changed, which a reload cannot apply; restart the process to use it "
                        + "(or put the old value back to reload the rest)"))
            }
        }
        needsRestart("server", current.server != next.server)
        needsRestart("dataDirectory", current.dataDirectory != next.dataDirectory)
        needsRestart("httpPort", current.httpPort != next.httpPort)
        needsRestart("httpBind", current.httpBind != next.httpBind)
        needsRestart("quarantine", current.quarantine != next.quarantine)
        needsRestart("logLevel", current.logLevel != next.logLevel)
        needsRestart("console", current.console != next.console)
        needsRestart("readinessTimeoutSeconds", current.readinessTimeout != next.readinessTimeout)
        guard issues.isEmpty else {
            self = .refused(issues)
            return
        }
        self = .apply(FleetChange(from: Self.bots(of: current, on: shard), to: Self.bots(of: next, on: shard), stopped: stopped))
    }

    /// The bots of `configuration` that `shard` runs (all without shards).
    package static func bots(of configuration: BotsConfiguration, on shard: Shard?) -> [BotConfiguration] {
        guard let shard else { return configuration.bots }
        let assignment = ShardAssignment(of: shard)
        return configuration.bots.filter { assignment.runs($0.name, on: shard.index) }
    }
}
