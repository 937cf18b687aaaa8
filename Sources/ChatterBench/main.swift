// chatter-bench: the benchmarks of issue 7 (throughput, latency, bots, storm) and of issue 2 (websocket).
// See bench/README.md and `chatter-bench help`.
await BenchCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
