import Foundation

/// The options of the scenarios (each reads those it needs; `chatter-bench help` lists them).
struct BenchOptions: Sendable {
    /// The server under test; nil: the scenario's default (load for throughput and latency, whose figures the
    /// sandbox would cap; sandbox for bots and storm, which need its durable store and its REST).
    var serverChoice: ServeOptions.Kind?
    /// The server of the scenario being run (`serverChoice` or the scenario's default).
    var server: ServeOptions.Kind = .sandbox
    /// The fleets measured, side by side (`--runtimes`). The C floor is in by default too: it builds in about a
    /// second with the machine's `cc`, and `--runtimes swift,python` leaves it out on a machine without one.
    var runtimes: [FleetProcess.Runtime] = FleetProcess.Runtime.allCases
    var python = "python3"
    /// How the Python peer commits (`--python-commit`).
    var pythonCommit = PythonCommit.group

    /// The Python peer's transactions: everything read since the last one together, or one per message and per ack.
    enum PythonCommit: String, Sendable {
        case group
        case each
    }
    var peerScript: String?
    var jsonPath: String?
    /// Where the latency scenario writes every message's latency (CSV), if anywhere.
    var latenciesPath: String?
    var keepFiles = false
    /// The Swift bots send `receipt.read` only, like the Python peer (the runtime's default sends delivered too).
    var readReceiptsOnly = false

    // throughput
    var messages = 20_000
    var senders = 8
    /// Unanswered messages per sender. 512, not 128, since a flooded bot commits on its store's worker while its
    /// loop thread goes on: 128 each no longer kept both busy (six alternating pairs on 12-02: +3 to +25 %).
    var window = 512
    /// At most this many of a conversation's messages go out in one write of the load server (throughput). One by
    /// default, as people send; bursts of 64 made no steady difference to either runtime.
    var burst = 1
    var warmup = 2_000
    // latency
    var rate = 1_000
    var seconds = 10.0
    // bots and storm
    var bots = [1_000]
    var idleSeconds = 30.0
    var heartbeatMilliseconds = 25_000
    var storeIdleSeconds: Double? = 10
    /// The Swift bots' process counts SQLite's memory (bots). Off by default: SQLite then takes one process-wide lock
    /// on every allocation, which the runtime never does, and 1,000 bots came up 15–25 % slower in alternating runs (bench/README.md).
    var countsSQLiteMemory = false
    /// The bots scenario also restarts the bots' process on the same stores, as a deployment does (bots).
    var measuresRestart = false
    /// The Swift bots run without marking their handlers' work in the in-flight table, to measure what the marks cost.
    var withoutInFlightMarks = false
    var stormMessages = 2_000
    var downSeconds = 3.0
    // sandbox
    var sockets = 2_000
    var holdSeconds = 10.0
    var groups = 1
    var members = 100
    var posts = 2_000
    var posters = 4
    var postWindow = 8

    init(arguments: [String]) throws(BenchUsageError) {
        var reader = ArgumentReader(arguments)
        while let option = reader.nextOption() {
            switch option {
            case "--server":
                let value = try reader.value(for: option)
                guard let kind = ServeOptions.Kind(rawValue: value) else {
                    throw BenchUsageError("--server is sandbox or load, not \(value)")
                }
                serverChoice = kind
            case "--runtimes":
                let value = try reader.value(for: option)
                let names = value.split(separator: ",").map(String.init)
                let parsed = names.compactMap(FleetProcess.Runtime.init(rawValue:))
                guard !parsed.isEmpty, parsed.count == names.count else {
                    throw BenchUsageError("--runtimes lists swift, python and/or c, not \(value)")
                }
                runtimes = parsed
            case "--swift-only": runtimes = [.swift]
            case "--python": python = try reader.value(for: option)
            case "--python-commit":
                let value = try reader.value(for: option)
                guard let commit = PythonCommit(rawValue: value) else {
                    throw BenchUsageError("--python-commit is group or each, not \(value)")
                }
                pythonCommit = commit
            case "--peer": peerScript = try reader.value(for: option)
            case "--json": jsonPath = try reader.value(for: option)
            case "--latencies": latenciesPath = try reader.value(for: option)
            case "--keep": keepFiles = true
            case "--read-receipts-only": readReceiptsOnly = true
            case "--without-in-flight-marks": withoutInFlightMarks = true
            case "--messages": messages = max(1, try reader.integer(for: option))
            case "--senders": senders = max(1, try reader.integer(for: option))
            case "--window": window = max(1, try reader.integer(for: option))
            case "--burst": burst = max(1, try reader.integer(for: option))
            case "--warmup": warmup = try reader.integer(for: option)
            case "--rate": rate = max(1, try reader.integer(for: option))
            case "--seconds": seconds = try reader.seconds(for: option)
            case "--bots": bots = try reader.integers(for: option)
            case "--idle-seconds": idleSeconds = try reader.seconds(for: option)
            case "--heartbeat-ms": heartbeatMilliseconds = max(1, try reader.integer(for: option))
            case "--store-idle-seconds": storeIdleSeconds = try reader.seconds(for: option)
            case "--sqlite-memory": countsSQLiteMemory = true
            case "--restart": measuresRestart = true
            case "--storm-messages": stormMessages = try reader.integer(for: option)
            case "--down-seconds": downSeconds = try reader.seconds(for: option)
            case "--sockets": sockets = max(1, try reader.integer(for: option))
            case "--hold-seconds": holdSeconds = try reader.seconds(for: option)
            case "--groups": groups = max(1, try reader.integer(for: option))
            case "--members": members = max(2, try reader.integer(for: option))
            case "--posts": posts = max(1, try reader.integer(for: option))
            case "--posters": posters = max(1, try reader.integer(for: option))
            case "--post-window": postWindow = max(1, try reader.integer(for: option))
            default: throw BenchUsageError("unknown option \(option)")
            }
        }
    }

    static let help = """
        usage: chatter-bench <scenario> [options]      (build with -c release for figures worth reading)

        scenarios
          throughput   one echo bot, its full durable path; --messages N from --senders S (window --window W each,
                       at most --burst B (1) of a sender's messages in one write)
          latency      --rate R messages/s for --seconds T; p50/p99/max from message.send to the reply's message.new
          bots         --bots N[,N…] bots in one process: time to ready and synced, memory per bot, idle CPU
                       over --idle-seconds with heartbeats every --heartbeat-ms; the Swift bots' stores go
                       dormant after --store-idle-seconds without use (default 10); --sqlite-memory adds SQLite's
                       share of the memory (SQLite then locks on every allocation: the start is slower);
                       --restart then stops the bots' process and starts a new one on the same stores: time until
                       all are live again, and waiting messages without a reply or answered twice (must be none)
          storm        --bots N connected, the server restarts (down --down-seconds, default 3); time until all
                       are back and synced; replies to --storm-messages messages sent around the restart
                       checked in the server's store
          sandbox      ChatterSandbox itself, in its own process: --sockets N people (default 2,000), each with a
                       device and a realtime socket, connected at once and held --hold-seconds (10): connected,
                       time, still open, server memory and CPU per socket; then fan-out on those sockets:
                       --groups G groups (1) of --members M (100), --posters P members of each (4) post --posts
                       messages in all (2,000), at most --post-window (8) unacknowledged each: message.new
                       deliveries/s, acks/s, latency p50/p99, missing and duplicate deliveries
          all          throughput, latency, bots, storm and sandbox with their defaults
          websocket [--quick]
                       WebSocket messages/s and MB/s, one way and round trip, 64 B and 64 KiB, our client to
                       our server and to a Python `websockets` server (issue 2)

        options
          --server sandbox|load   the server under test, in its own process: ChatterSandbox (SQLite) or LoadServer
                                  (lean, in memory, virtual senders); default load for throughput and latency,
                                  sandbox for bots and storm
          --runtimes swift,python,c  which fleets run, side by side (default all three); c is the floor, plain C
                                  (bench/c_floor/echo_floor.c, built with cc on first use); --swift-only
          --python PATH           the Python interpreter of the peer (default python3)
          --python-commit group|each  the peer's transactions: every message and ack read since the last one in
                                  one (group, default: what a careful asyncio user writes), or one per message and
                                  one per ack (each: the first, naive peer)
          --json PATH             where the JSON report goes (default bench/results/<scenario>.json)
          --latencies PATH        latency: every message's latency as CSV (runtime, when it was due, latency), to
                                  tell the tail's stalls (many messages late together) from spread
          --keep                  keep the stores and logs (printed) instead of deleting them; for runs back to
                                  back, since on ext4 without a journal creating files is slower for up to six
                                  minutes after deleting many (bench/README.md, "Files deleted lately"); a run
                                  within six minutes of one that deleted its stores says so on its machine line
          --read-receipts-only    the Swift bots send receipt.read only, as the Python peer does (`"receipts":
                                  "read"` in bots.json; the default also sends receipt.delivered once stored)
          --without-in-flight-marks  the Swift bots do not mark their handlers' work in the in-flight table (which
                                  `run` always does; docs/quarantine.md), to measure what the marks cost
        """
}
