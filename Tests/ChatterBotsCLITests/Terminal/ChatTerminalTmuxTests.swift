import Foundation
import Glibc
import Testing
import TestSupport

/// The built `example-bots` as a person uses it: `run` with the embedded sandbox and the echo bot in one
/// process, `chat --as alice` in a tmux pane in another, typed into and read off the screen.
@Suite("example-bots chat in tmux", .serialized)
struct ChatTerminalTmuxTests {
    static let configuration = """
        {
          "server": "sandbox",
          "dataDirectory": "data",
          "bots": [
            { "name": "echo", "kind": "echo",
              "credentials": { "username": "echo_bot", "password": "echo-bot-sandbox" },
              "friendRequests": "everyone", "options": { "prefix": "echo: " } }
          ]
        }
        """

    /// Starts `run` on a free port and returns it with the port its sandbox listens on.
    static func startBots(in directory: TemporaryDirectory) async throws -> (BotProcess, Int) {
        try directory.write(configuration, to: "bots.json")
        let run = try BotProcess(["run", "--config", "bots.json", "--sandbox-port", "0"], in: directory.url, label: "run")
        let marker = "Chatter sandbox: http://127.0.0.1:"
        let started = await eventually(timeout: .hangGuard) { run.output.contains(marker) }
        guard started, let range = run.output.range(of: marker) else {
            throw ProcessTestError("run did not start its sandbox:\n\(run.output)\n\(run.errors)")
        }
        let port = Int(run.output[range.upperBound...].prefix { $0.isNumber }) ?? 0
        return (run, port)
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Runs `body` with `run` started in a fresh directory and the shell command that starts `chat --as alice`
    /// against it (the pane stays open a minute after chat exits, so its last words can be read); stops `run`
    /// (SIGTERM) afterwards and expects a clean exit.
    static func withBots(_ body: (_ chatCommand: String, _ directory: TemporaryDirectory) async throws -> Void) async throws {
        let directory = try TemporaryDirectory("ChatTerminalTmuxTests")
        let (run, port) = try await startBots(in: directory)
        let executable = try BotProcess.executable().path
        let command = "cd \(shellQuoted(directory.url.path)) && \(shellQuoted(executable)) chat --as alice "
            + "--config bots.json --sandbox-port \(port) 2>>chat.err; sleep 60"
        do {
            try await body(command, directory)
        } catch {
            let errors = (try? String(contentsOf: directory.url.appendingPathComponent("chat.err"), encoding: .utf8)) ?? ""
            run.send(SIGTERM)
            _ = await run.waitForExit()
            throw ProcessTestError("\(error)\nchat's standard error:\n\(errors)\nrun's:\n\(run.errors)")
        }
        run.send(SIGTERM)
        #expect(await run.waitForExit() == .code(0))
    }

    @Test func aPersonTalksToTheEchoBotAndReadsItsReplyOffTheScreen() async throws {
        try await Self.withBots { command, _ in
            let tmux = try await TmuxSession.start(command)
            defer { Task { await tmux.kill() } }
            try await tmux.waitForScreen(containing: "Connected: messages arrive live.")
            try await tmux.type("/dm echo_bot")
            try await tmux.waitForScreen(containing: "── echo_bot · direct conversation")
            try await tmux.type("hello from tmux")
            let screen = try await tmux.waitForScreen(containing: "echo_bot: echo: hello from tmux")
            #expect(screen.contains("alice: hello from tmux"))
            try await tmux.waitForScreen(containing: "✓✓ read by echo_bot: \"hello from tmux\"")
            try await tmux.type("/list")
            try await tmux.waitForScreen(containing: "1  echo_bot")
            try await tmux.type("/quit")
            try await tmux.waitForScreen(containing: "Bye.")
            await tmux.kill()
        }
    }

    @Test func aSecondRunShowsTheConversationWithItsHistoryAsTheSameDevice() async throws {
        try await Self.withBots { command, directory in
            let first = try await TmuxSession.start(command)
            try await first.waitForScreen(containing: "Connected:")
            try await first.type("/dm echo_bot")
            try await first.waitForScreen(containing: "No messages yet")
            try await first.type("remember me")
            try await first.waitForScreen(containing: "echo_bot: echo: remember me")
            try await first.type("/quit")
            try await first.waitForScreen(containing: "Bye.")
            await first.kill()
            let deviceFile = directory.url.appendingPathComponent("data/chat/alice.json")
            let device = try String(contentsOf: deviceFile, encoding: .utf8)

            let second = try await TmuxSession.start(command)
            defer { Task { await second.kill() } }
            try await second.waitForScreen(containing: "Connected:")
            try await second.waitForScreen(containing: "echo_bot: echo: remember me")  // the /list preview
            try await second.type("/open 1")
            let screen = try await second.waitForScreen(containing: "alice: remember me  ✓✓")
            #expect(screen.contains("echo_bot: echo: remember me"))
            #expect(try String(contentsOf: deviceFile, encoding: .utf8) == device)
            await second.kill()
        }
    }
}
