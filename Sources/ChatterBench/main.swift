// chatter-bench: the benchmarks of issue 7 (and the WebSocket benchmark of issue 2). See bench/README.md.
await BenchCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
