import ChildProcesses
import Foundation
import TestSupport

/// A detached tmux session on a tmux server of its own (`tmux -L`), so the test neither sees nor disturbs anyone
/// else's sessions: start a command in it, type into it, read its screen.
///
/// tmux is spawned with every descriptor above standard error closed: the server that `new-session` forks must not
/// inherit this process's descriptors (a pipe it kept would never reach end of file).
struct TmuxSession: Sendable {
    let server: String
    let name: String

    /// Starts `command` (a shell command line) in a new `width`×`height` session.
    static func start(_ command: String, width: Int = 120, height: Int = 40) async throws -> TmuxSession {
        try TestPeer.command("tmux")
        let session = TmuxSession(server: "chatterbots-\(UUID().uuidString.prefix(8))", name: "chat")
        try await session.tmux(["new-session", "-d", "-s", session.name, "-x", "\(width)", "-y", "\(height)", command])
        return session
    }

    /// Types `text` followed by Enter.
    func type(_ text: String) async throws {
        try await tmux(["send-keys", "-t", name, "-l", text])
        try await tmux(["send-keys", "-t", name, "Enter"])
    }

    /// The visible screen, as text.
    func screen() async throws -> String {
        try await tmux(["capture-pane", "-p", "-J", "-t", name])
    }

    /// Waits until the screen contains `text`; returns the screen.
    @discardableResult
    func waitForScreen(containing text: String, timeout: Duration = .hangGuard) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while true {
            let shown = try await screen()
            if shown.contains(text) { return shown }
            guard ContinuousClock.now < deadline else {
                throw TmuxError("the screen never showed \"\(text)\"; it shows:\n\(shown)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Ends the session and its tmux server (and so the command in it).
    func kill() async {
        _ = try? await tmux(["kill-server"])
        let directory = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
        try? FileManager.default.removeItem(atPath: "\(directory)/tmux-\(getuid())/\(server)")
    }

    /// Runs `tmux -L server -f /dev/null arguments…` and returns its standard output.
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> String {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let status = try await Self.spawn(["tmux", "-L", server, "-f", "/dev/null"] + arguments, output: outputFile.path)
        let text = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw TmuxError("tmux \(arguments.first ?? "") exited with \(status): \(text)")
        }
        return text
    }

    /// Runs `arguments` (looked up in `PATH`) with standard input from /dev/null, standard output and error to
    /// `output`, and no other descriptor (the shared `ChildProcess` also resets the signal mask and dispositions,
    /// which tmux and the command in its pane need to obey SIGTERM and SIGHUP); its exit is awaited for at most 30 s.
    private static func spawn(_ arguments: [String], output: String) async throws -> Int32 {
        var environment: [String: String] = [:]
        let term = ProcessInfo.processInfo.environment["TERM"]
        environment["TERM"] = term.flatMap { $0 == "dumb" ? nil : $0 } ?? "xterm-256color"
        // From inside tmux, tmux would refuse to nest.
        let child = try ChildProcess(
            arguments, environment: environment, unsetting: ["TMUX"], standardOutput: .file(output),
            standardError: .standardOutput, discardingInput: true)
        guard let termination = await child.termination(timeout: .hangGuard) else {
            child.kill()
            throw TmuxError("\(arguments.dropFirst(4).first ?? "tmux") did not finish within 30 s")
        }
        return termination.status
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
