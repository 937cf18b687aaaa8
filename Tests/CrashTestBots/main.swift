import ChatterBots
import ChatterBotsCLI
import ChildProcesses
import Foundation

/// An echo bot with bugs on purpose, for the tests of crashes and the quarantine: it traps on a message whose text
/// is `trapOn`, recurses until its stack overflows on `overflowOn`, allocates until the process is killed on
/// `hogOn`, traps on every message when `trapAlways`, traps in its repeating job `tick` when `trapInJob`, and its kind
/// traps making it when `trapInMake`. Without options it is a plain echo bot ("echo: <text>");
/// `answerMilliseconds` makes each answer take that long (a flood then always has a handler running); on `hangOn`
/// the handler never returns, cancelled or not.
struct PoisonBot: Bot {
    struct Options: Decodable {
        var trapOn: String?
        var overflowOn: String?
        var hogOn: String?
        var trapAlways: Bool?
        var trapInJob: Bool?
        var trapInMake: Bool?
        var tickSeconds: Double?
        var answerMilliseconds: Int?
        var hangOn: String?
    }

    static let tick = JobKind<String>("tick")

    let options: Options

    func onReady(_ session: SessionReady, context: any BotContext) async throws {
        guard let seconds = options.tickSeconds, try await context.jobs.scheduled(Self.tick).isEmpty else { return }
        _ = try await context.jobs.schedule(Self.tick, at: context.now, repeating: .every(.milliseconds(Int64(seconds * 1000))), payload: "tick")
    }

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        if options.trapAlways == true || message.text == options.trapOn {
            let empty: [Int] = []
            context.logger.info("about to trap on \(message.text)")
            _ = (1...empty.count).count
        }
        if message.text == options.overflowOn {
            context.logger.info("about to overflow on \(message.text)")
            _ = Self.depth(of: [0])
        }
        if message.text == options.hogOn {
            var hoard: [[UInt8]] = []
            while true { hoard.append([UInt8](repeating: 1, count: 16 << 20)) }
        }
        if message.text == options.hangOn {
            context.logger.info("about to hang on \(message.text)")
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        }
        if let milliseconds = options.answerMilliseconds { try await Task.sleep(for: .milliseconds(milliseconds)) }
        try await context.reply(to: message, "echo: " + message.text)
    }

    /// Recurses without end (the guard never returns); the addition after the call keeps each frame on the stack.
    static func depth(of path: [Int]) -> Int {
        guard path.count < Int.max else { return 0 }
        return depth(of: [path[0] + 1]) + path[0]
    }

    func onScheduledJob(_ job: ScheduledJob, context: any BotContext) async throws {
        if options.trapInJob == true {
            let empty: [Int] = []
            _ = (1...empty.count).count
        }
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "crash-report-probe" {
    guard let mode = CrashReportProbe.Mode(rawValue: arguments[3]) else { exit(2) }
    CrashReportProbe.run(directory: arguments[2], mode: mode)
}
// `CrashTestBots orphan-probe`: starts a child that outlives this process (its standard error this process's), prints
// the child's pid, and exits without stopping it, as a process that crashes does.
if arguments.count == 2, arguments[1] == "orphan-probe" {
    guard let child = try? ChildProcess(["sleep", "300"], standardOutput: .discarded, discardingInput: true) else { exit(2) }
    FileHandle.standardOutput.write(Data("\(child.pid)\n".utf8))
    exit(0)
}

await BotCommandLine(kinds: [
    BotKind("poison") { configuration in
        let options = try configuration.options.decode(as: PoisonBot.Options.self)
        if options.trapInMake == true {
            let empty: [Int] = []
            _ = (1...empty.count).count
        }
        return PoisonBot(options: options)
    },
]).main()
