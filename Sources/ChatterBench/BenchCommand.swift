import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The `chatter-bench` command line: a scenario name, then options.
enum BenchCommand {
    /// This executable (the bench starts itself as the server and the Swift fleet).
    static var executableURL: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    }

    static func main(arguments: [String]) async -> Never {
        guard let scenario = arguments.first else {
            print(BenchOptions.help)
            exit(2)
        }
        let rest = Array(arguments.dropFirst())
        do throws(BenchUsageError) {
            switch scenario {
            case "serve":
                exit(await ServeCommand(options: try ServeOptions(arguments: rest)).run())
            case "fleet":
                guard let path = rest.first else { throw BenchUsageError("fleet needs its configuration file") }
                exit(await FleetCommand(configurationPath: path).run())
            case "websocket":
                await WebSocketBenchmark(quick: rest.contains("--quick")).run()
                exit(0)
            case "help", "--help", "-h":
                print(BenchOptions.help)
                exit(0)
            case "throughput", "latency", "bots", "storm", "sandbox", "all":
                exit(await runScenarios(scenario, options: try BenchOptions(arguments: rest)))
            default:
                throw BenchUsageError("unknown scenario \(scenario)")
            }
        } catch {
            FileHandle.standardError.write(Data("chatter-bench: \(error)\n\n\(BenchOptions.help)\n".utf8))
            exit(2)
        }
    }

    private static func runScenarios(_ name: String, options: BenchOptions) async -> Int32 {
        let limits = ProcessProbe.raiseOpenFileLimit(to: 1 << 20)
        signal(SIGPIPE, SIG_IGN)
        let workDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("chatter-bench-\(getpid())", isDirectory: true)
        var context = BenchContext(options: options, workDirectory: workDirectory)
        defer {
            if options.keepFiles {
                print("files kept in \(workDirectory.path)")
            } else {
                FileDeletionRecord.user.remove(workDirectory)
            }
        }
        let names = name == "all" ? ["throughput", "latency", "bots", "storm", "sandbox"] : [name]
        var status: Int32 = 0
        for name in names {
            // The sandbox scenario measures the sandbox: it runs against nothing else.
            context.options.server = name == "sandbox"
                ? .sandbox : options.serverChoice ?? (["throughput", "latency"].contains(name) ? .load : .sandbox)
            do {
                let report: BenchReport
                switch name {
                case "throughput": report = try await ThroughputScenario(context: context).run()
                case "latency": report = try await LatencyScenario(context: context).run()
                case "bots": report = try await BotsScenario(context: context).run()
                case "sandbox": report = try await SandboxScenario(context: context).run()
                default: report = try await StormScenario(context: context).run()
                }
                var withLimits = report
                withLimits.parameters["openFileLimit"] = "\(limits.soft)"
                print(withLimits.table())
                print("")
                let path = options.jsonPath.map { names.count > 1 ? $0.replacingOccurrences(of: ".json", with: "-\(name).json") : $0 }
                    ?? "bench/results/\(name).json"
                try withLimits.write(to: path)
                print("JSON: \(path)\n")
            } catch {
                FileHandle.standardError.write(Data("chatter-bench \(name): \(error)\n".utf8))
                status = 1
            }
        }
        return status
    }
}
