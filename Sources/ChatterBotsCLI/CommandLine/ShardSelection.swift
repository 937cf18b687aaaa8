import BotRuntime
import Foundation

/// Where `run` takes its shard from, as the command line says: `--shard INDEX/COUNT`, or
/// `--shard-from-hostname [--shard-count N]`. Without either, the environment may say: `CHATTERBOTS_SHARD=INDEX/COUNT`,
/// or `CHATTERBOTS_SHARD_COUNT=N` with the index from the host name's StatefulSet ordinal.
package enum ShardSelection: Sendable, Equatable {
    /// `--shard INDEX/COUNT`.
    case shard(Shard)
    /// `--shard-from-hostname`, with `--shard-count N` or nil (then `CHATTERBOTS_SHARD_COUNT`).
    case hostname(count: Int?)

    /// The environment variable holding `INDEX/COUNT`.
    package static let shardVariable = "CHATTERBOTS_SHARD"
    /// The environment variable holding the count, the index coming from the host name.
    package static let countVariable = "CHATTERBOTS_SHARD_COUNT"

    /// The layout of the shard `run` runs: `selection`'s shard when given, else the environment's; no shard runs every
    /// bot. A shard whose index comes from the host name runs alone on its host (a StatefulSet's pod): it keeps the
    /// configured ports.
    ///
    /// - Parameters:
    ///   - variables: the process's environment; `HOSTNAME` in it is the pod name on Kubernetes.
    ///   - systemHostname: the host name when `HOSTNAME` is not set.
    /// - Throws: `CommandLineUsageError` saying which option or variable is wrong.
    package static func layout(
        _ selection: ShardSelection?, variables: [String: String], systemHostname: () -> String = Self.systemHostname
    ) throws(CommandLineUsageError) -> ShardLayout {
        let (shard, fromHostname) = try choose(selection, variables: variables, systemHostname: systemHostname)
        return ShardLayout(shard: shard, isAloneOnHost: fromHostname)
    }

    /// The shard, and whether its index came from the host name.
    private static func choose(
        _ selection: ShardSelection?, variables: [String: String], systemHostname: () -> String
    ) throws(CommandLineUsageError) -> (Shard?, fromHostname: Bool) {
        func value(_ name: String) -> String? {
            variables[name].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        }
        func hostnameShard(count: Int, countSource: String) throws(CommandLineUsageError) -> Shard {
            let hostname = value("HOSTNAME") ?? systemHostname()
            do {
                return try Shard(hostname: hostname, count: count)
            } catch {
                throw CommandLineUsageError("the shard from the host name (count from \(countSource)): \(error)", command: "run")
            }
        }
        switch selection {
        case .shard(let shard):
            return (shard, false)
        case .hostname(let count?):
            return (try hostnameShard(count: count, countSource: "--shard-count"), true)
        case .hostname(nil):
            guard let text = value(countVariable) else {
                throw CommandLineUsageError(
                    "--shard-from-hostname needs the shard count: give --shard-count N or set \(countVariable)", command: "run")
            }
            return (try hostnameShard(count: try count(text, from: countVariable), countSource: countVariable), true)
        case nil:
            switch (value(shardVariable), value(countVariable)) {
            case (nil, nil):
                return (nil, false)
            case (let text?, nil):
                do {
                    return (try Shard(parsing: text), false)
                } catch {
                    throw CommandLineUsageError("\(shardVariable): \(error)", command: "run")
                }
            case (nil, let text?):
                return (try hostnameShard(count: try count(text, from: countVariable), countSource: countVariable), true)
            case (_?, _?):
                throw CommandLineUsageError(
                    "both \(shardVariable) and \(countVariable) are set: set \(shardVariable)=INDEX/COUNT, or "
                        + "\(countVariable)=N to take the index from the host name, not both", command: "run")
            }
        }
    }

    private static func count(_ text: String, from source: String) throws(CommandLineUsageError) -> Int {
        do {
            return try Shard.count(parsing: text)
        } catch {
            throw CommandLineUsageError("\(source): \(error)", command: "run")
        }
    }

    /// This machine's host name (the pod name in a Kubernetes pod).
    package static func systemHostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
