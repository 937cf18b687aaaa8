import Foundation
import Glibc

/// A detached tmux session on a tmux server of its own (`tmux -L`), so the test neither sees nor disturbs anyone
/// else's sessions: start a command in it, type into it, read its screen.
///
/// tmux is spawned with every descriptor above standard error closed: the server that `new-session` forks must not
/// inherit this process's descriptors (Foundation's `Process` watches its children through one, and would wait
/// forever for a client whose daemon kept it).
struct TmuxSession: Sendable {
    let server: String
    let name: String

    /// Starts `command` (a shell command line) in a new `width`×`height` session.
    static func start(_ command: String, width: Int = 120, height: Int = 40) async throws -> TmuxSession {
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
    func waitForScreen(containing text: String, timeout: Duration = .seconds(30)) async throws -> String {
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

    /// Spawns `arguments` (looked up in `PATH`) with standard input from /dev/null, standard output and error to
    /// `output`, and no other descriptor; waits for it on a dispatch thread, never on the cooperative pool.
    private static func spawn(_ arguments: [String], output: String) async throws -> Int32 {
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = environment["TERM"].flatMap { $0 == "dumb" ? nil : $0 } ?? "xterm-256color"
        environment.removeValue(forKey: "TMUX")  // from inside tmux, tmux would refuse to nest
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let inherited = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap(Int32.init)
        for descriptor in inherited where descriptor > 2 { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // The calling thread may block signals (dispatch's threads do); tmux and the command in its pane must get
        // SIGTERM and SIGHUP, or `kill-server` leaves them running.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGHUP, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var spawned: pid_t = 0
        let result = posix_spawnp(&spawned, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw TmuxError("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        let pid = spawned
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
                // WIFEXITED / WEXITSTATUS, which Swift does not import as macros.
                continuation.resume(returning: status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f))
            }
        }
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
