// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "ChatterBots",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SQLite", targets: ["SQLite"]),
        .library(name: "WebSocket", targets: ["WebSocket"]),
        .library(name: "ChatterBots", targets: ["ChatterBots"]),
        .library(name: "BotRuntime", targets: ["BotRuntime"]),
        .library(name: "ChatterBotsCLI", targets: ["ChatterBotsCLI"]),
        .library(name: "ChatterSandbox", targets: ["ChatterSandbox"]),
        .library(name: "ChatterBotsTesting", targets: ["ChatterBotsTesting"]),
        .executable(name: "chatter-bench", targets: ["ChatterBench"]),
        .executable(name: "example-bots", targets: ["ExampleBots"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(
            name: "COpenSSL", pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // epoll, eventfd and accept4: Linux headers that Swift's Glibc module does not import.
        .systemLibrary(name: "CLinuxIO"),
        // The crash report's signal handler, in C so that it makes only async-signal-safe calls.
        .target(name: "CInFlight"),
        // The bot stores' SQLite VFS (plain paths, a log frame in one write), in C: SQLite calls it.
        .target(name: "CStoreVFS", dependencies: ["CSQLite"]),
        .target(name: "SQLite", dependencies: ["CSQLite", "CStoreVFS"], swiftSettings: strict),
        .target(name: "WebSocket", dependencies: ["COpenSSL", "CLinuxIO"], swiftSettings: strict),
        .target(name: "ChatterBots", dependencies: ["WebSocket"], swiftSettings: strict),
        .target(name: "BotRuntime", dependencies: ["ChatterBots", "SQLite", "WebSocket", "CInFlight"], swiftSettings: strict),
        // The command line (run, check, say, chat, sandbox), the embedded sandbox's wiring and the terminal client:
        // what an executable of bots imports, so that the runtime library carries no server.
        .target(
            name: "ChatterBotsCLI", dependencies: ["BotRuntime", "ChatterBots", "ChatterSandbox", "WebSocket"],
            swiftSettings: strict),
        .target(name: "ChatterSandbox", dependencies: ["ChatterBots", "SQLite", "WebSocket", "COpenSSL"], swiftSettings: strict),
        .target(
            name: "ChatterBotsTesting", dependencies: ["BotRuntime", "ChatterSandbox", "ChatterBots"], swiftSettings: strict),
        .target(name: "ExampleBotKinds", dependencies: ["ChatterBots"], swiftSettings: strict),
        .executableTarget(
            name: "ChatterBench",
            dependencies: ["WebSocket", "ChatterBots", "BotRuntime", "ChatterSandbox", "SQLite", "ChildProcesses"],
            swiftSettings: strict),
        .executableTarget(
            name: "ExampleBots", dependencies: ["ExampleBotKinds", "ChatterBotsCLI"], swiftSettings: strict),
        // Child processes started with posix_spawn instead of Foundation's Process, for the tests and the benchmark.
        .target(name: "ChildProcesses", dependencies: ["CLinuxIO"], swiftSettings: strict),
        // What several test targets share: bounded waits, free ports, peers, temporary directories, a virtual clock
        // for HTTP deadlines.
        .target(
            name: "TestSupport", dependencies: ["ChatterBots", "ChildProcesses", "WebSocket"], path: "Tests/TestSupport",
            swiftSettings: strict),
        // A bot with bugs on purpose, run as a process by the tests of crashes and the quarantine.
        .executableTarget(
            name: "CrashTestBots", dependencies: ["ChatterBotsCLI", "ChatterBots", "BotRuntime", "ChildProcesses"],
            path: "Tests/CrashTestBots",
            swiftSettings: strict),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestSupport", "ChildProcesses"], swiftSettings: strict),
        .testTarget(name: "WebSocketTests", dependencies: ["WebSocket", "TestSupport", "ChildProcesses"], resources: [.copy("Peers")], swiftSettings: strict),
        // Stand-ins for the runtime's parts, shared by the runtime's and the command line's tests.
        .target(
            name: "BotRuntimeTestSupport", dependencies: ["BotRuntime", "TestSupport"], path: "Tests/BotRuntimeTestSupport",
            swiftSettings: strict),
        .testTarget(
            name: "BotRuntimeTests",
            dependencies: [
                "BotRuntime", "ChatterSandbox", "ChatterBotsTesting", "TestSupport", "BotRuntimeTestSupport", "ChildProcesses",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "ChatterBotsCLITests",
            dependencies: [
                "ChatterBotsCLI", "BotRuntime", "ChatterSandbox", "TestSupport", "BotRuntimeTestSupport", "ChildProcesses",
            ],
            // The browser script runs from its place in the checkout (`#filePath`), not as a resource.
            exclude: ["Console/Browser"],
            swiftSettings: strict),
        .testTarget(name: "ChatterSandboxTests", dependencies: ["ChatterSandbox", "TestSupport", "ChildProcesses"], resources: [.copy("Peers")], swiftSettings: strict),
        .testTarget(
            name: "ExampleBotKindsTests", dependencies: ["ExampleBotKinds", "ChatterBotsTesting", "ChatterSandbox"],
            swiftSettings: strict),
        .testTarget(name: "ChatterBotsTestingTests", dependencies: ["ChatterBotsTesting"], swiftSettings: strict),
        .testTarget(name: "ChatterBotsTests", dependencies: ["ChatterBots", "TestSupport", "ChildProcesses"], resources: [.copy("Peers")], swiftSettings: strict),
        .testTarget(name: "ChatterBenchTests", dependencies: ["ChatterBench", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ChildProcessesTests", dependencies: ["ChildProcesses", "TestSupport"], swiftSettings: strict),
        // The README's test command itself (scripts/test), run on copies in temporary folders.
        .testTarget(name: "ScriptsTests", dependencies: ["TestSupport", "ChildProcesses"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
