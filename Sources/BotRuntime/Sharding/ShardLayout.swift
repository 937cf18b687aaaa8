import Foundation

/// Where the shards of one host keep apart: what each shard process of a fleet uses of the host's shared
/// data directory and ports (docs/scaling.md, "Shards").
///
/// - Bot stores stay `<dataDirectory>/<bot>.sqlite` for every shard: shards run disjoint bots, so their stores
///   never collide, and a bot that moves to another shard of the same host finds its store where it was.
/// - Each shard's in-flight table (`InFlightTable`, locked by one process) lives in `<dataDirectory>/shard-<INDEX>`.
///   The count is not in the name, so the next run of that index finds what a crashed one left, whatever the count.
/// - The HTTP port is `httpPort + INDEX` when `httpPort` is set and not 0 (0 lets each shard take any free port),
///   unless the shard runs alone on its host (a StatefulSet's pod, its index from the host name): then it is `httpPort`,
///   the port its probes and Service name.
/// - With `"server": "sandbox"`, shard 0 embeds the sandbox and the other shards connect to it.
package struct ShardLayout: Sendable, Equatable {
    /// The shard; nil for a process that runs every bot.
    package let shard: Shard?
    /// Whether the shard runs alone on its host, as a pod whose index comes from its name: no other shard takes its
    /// ports.
    package let isAloneOnHost: Bool

    package init(shard: Shard?, isAloneOnHost: Bool = false) {
        self.shard = shard
        self.isAloneOnHost = isAloneOnHost
    }

    /// The directory of the process's in-flight table: the data directory itself without a shard.
    package func inFlightDirectory(in dataDirectory: URL) -> URL {
        guard let shard else { return dataDirectory }
        return dataDirectory.appendingPathComponent("shard-\(shard.index)", isDirectory: true)
    }

    /// The port of the health and metrics server for the configured `httpPort`: nil when it is not set.
    ///
    /// - Throws: `ShardLayoutError.httpPortOutOfRange` when `httpPort + INDEX` passes 65535.
    package func httpPort(configured: UInt16?) throws(ShardLayoutError) -> Int? {
        guard let configured else { return nil }
        guard let shard, configured != 0, !isAloneOnHost else { return Int(configured) }
        let port = Int(configured) + shard.index
        guard port <= Int(UInt16.max) else {
            throw .httpPortOutOfRange(httpPort: Int(configured), shard: shard)
        }
        return port
    }

    /// Whether this process starts the embedded sandbox (`"server": "sandbox"`); the others connect to it.
    package var embedsSandbox: Bool {
        (shard?.index ?? 0) == 0
    }

    /// Whether shards share the sandbox: they must find it on a known port.
    package var sharesSandbox: Bool {
        (shard?.count ?? 1) > 1
    }
}

/// A shard's layout cannot be made from the configuration; the case says what to change.
package enum ShardLayoutError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `httpPort + INDEX` is past the last port.
    case httpPortOutOfRange(httpPort: Int, shard: Shard)

    package var description: String {
        switch self {
        case .httpPortOutOfRange(let httpPort, let shard):
            "shard \(shard) would serve HTTP on port \(httpPort)+\(shard.index), past 65535; "
                + "lower httpPort in the configuration (or set it to 0: any free port)"
        }
    }
}
