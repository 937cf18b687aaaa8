import BotRuntime
/// The usage texts of `BotCommandLine`, general and per command.
struct CommandLineHelp {
    let program: String
    let kinds: [String]

    var general: String {
        """
        USAGE: \(program) <command> [options]

        Runs Chatter bots: every bot of bots.json in this one process, each with its own durable session.

        COMMANDS:
          run         Run the bots until SIGINT or SIGTERM (the main command)
          check       Validate the configuration and print what would run
          sandbox     Run the local Chatter sandbox server alone
          say         Send a message as a person and print the reply: say --as alice --to echo_bot hello
          chat        Chat live as a person in this terminal: chat --as alice
          quarantine  List, retry or drop the work set aside for crashing the process: quarantine list
          reload      Make the running bots read bots.json again: added bots start, removed ones stop, changed ones restart
          help        Show this help, or one command's: \(program) help run
          export      Copy a stopped bot's store to a file and mark it as moved: export echo --to echo.store
          import      Put an exported store into this data directory: import echo.store

        \(runOptions)

        \(checkOptions)

        \(sandboxOptions)

        \(sayOptions)

        \(chatOptions)

        \(quarantineOptions)

        \(exitStatus)

        Registered bot kinds: \(kinds.isEmpty ? "none" : kinds.joined(separator: ", "))
        """
    }

    func text(for command: String?) -> String {
        switch command {
        case "run":
            """
            USAGE: \(program) run [--config FILE] [--sandbox-port N] [--shutdown-timeout SECONDS] [--http-bind ADDRESS]
                   [--shard INDEX/COUNT | --shard-from-hostname [--shard-count N]] [--watch-config SECONDS]

            Runs every bot of the configuration until SIGINT or SIGTERM, then stops them gracefully: running handlers
            finish and pending sends are acknowledged within the timeout. A second signal exits at once. With
            "server": "sandbox", a local Chatter server starts first, with test accounts to talk to the bots.
            With a shard, only the bots assigned to it run (docs/scaling.md); shards of one host share the data
            directory, serve HTTP on httpPort + INDEX, and share the sandbox that shard 0 starts.
            SIGHUP, `\(program) reload` and a change of the file reload it: see `\(program) help reload`.

            \(runOptions)

            \(exitStatus)
            """
        case "check":
            """
            USAGE: \(program) check [--config FILE] [--shards N [--from M]]

            Validates the configuration (every problem at once, naming the bot and the field), checks that each bot's
            kind is registered and accepts its options, and prints what `run` would start. Connects to nothing.

            \(checkOptions)

            \(exitStatus)
            """
        case "sandbox":
            """
            USAGE: \(program) sandbox [--port N] [--data DIR] [--console-port N [--console-bind ADDRESS]]

            Runs the local Chatter sandbox server alone (REST under /v1, realtime at /v1/ws, admin routes under
            /sandbox/) until SIGINT or SIGTERM, seeded with test accounts. Point a bots.json at it with its URLs
            and the client key it prints. With --console-port, a web console at /console/ on that port chats as
            the test accounts and sets off faults on connections (docs/console.md); off loopback it needs
            CHATTERBOTS_CONTROL_TOKEN.

            \(sandboxOptions)

            \(exitStatus)
            """
        case "say":
            """
            USAGE: \(program) say --as USER --to USER [--password P] [--server URL] [--wait SECONDS] MESSAGE...

            Signs in as USER, sends MESSAGE in the direct conversation with the recipient (they must be friends),
            prints the first reply, and signs out. Made for trying bots from a terminal while `run` is running:
            the sandbox test accounts need no password.

            \(sayOptions)

            \(exitStatus)
            """
        case "chat":
            """
            USAGE: \(program) chat --as USER [--password P] [--config FILE | --api URL [--ws URL] [--client-key KEY]]

            The terminal client: signs in as USER (one device across runs, remembered in DATA/chat/), lists the
            conversations with their unread counts, and shows messages, typing, receipts (✓ delivered, ✓✓ read) and
            friends coming online as they happen. Lines starting with / are commands (/list, /open <n|name>,
            /dm <username>, /friends, /accept <n>, /decline <n>, /react <emoji>, /help, /quit); any other line is sent
            to the open conversation. Without --api it connects to the server of the configuration: with "server":
            "sandbox", to the sandbox that `\(program) run` started on 127.0.0.1:\(EmbeddedSandbox.defaultPort).

            \(chatOptions)

            \(exitStatus)
            """
        case "quarantine":
            """
            USAGE: \(program) quarantine list [--bot NAME] [--config FILE] [--json]
                   \(program) quarantine retry BOT/N [--config FILE] [--json]
                   \(program) quarantine drop BOT/N [--config FILE] [--json]

            Work that was running each of the last times the process died (quarantine.attempts in bots.json) is set
            aside and not handled again. `list` shows it, an ID (BOT/N) per entry, with the handler, when its last
            attempt started and the message text shortened. `retry` hands it to its handler again once the code is
            fixed: at once when the bot runs, else at its next start (out of seq order). `drop` forgets it.

            With `run` running and httpPort set, the commands go through its HTTP port (127.0.0.1, the port in
            DATA/control.json). With no `run` running, they work on the bots' store files. A `run` without httpPort
            holds the stores: the commands refuse, and say to set httpPort. See docs/quarantine.md.

            \(quarantineOptions)

            \(exitStatus)
            """
        case "reload":
            """
            USAGE: \(program) reload [--config FILE]

            Asks each `run` process of the configuration (found through DATA/control.json, so httpPort must be set)
            to read bots.json again. Bots added start, bots removed stop gracefully (their connection closes with
            1000), bots whose settings, options or secrets changed restart, bots stopped on their own (crashing, a
            refused sign-in) start again, and the others keep their sessions. A file that does not validate changes
            nothing: every error is printed. A change of server, dataDirectory, httpPort, httpBind, console,
            quarantine or logLevel is refused: restart the process for it. SIGHUP to the process
            and a change of the file itself (a Kubernetes ConfigMap swap, seen within 2 seconds) reload too. With
            CHATTERBOTS_CONTROL_TOKEN set, the token is sent. See docs/running.md.

            OPTIONS:
              --config, -c FILE            The configuration (default: bots.json in the working directory)

            \(exitStatus)
            """
        case "export", "import":
            storeCommandText
        default:
            general
        }
    }

    /// `export` and `import`: moving a bot with its state (docs/scaling.md, "Moving a bot and resharding").
    private var storeCommandText: String {
        """
        USAGE: \(program) export BOT --to FILE [--config FILE | --data DIR]
               \(program) import FILE [--as BOT] [--config FILE | --data DIR]

        export copies the whole store of a stopped bot (its device and tokens, cursors, outbox, state, schedules and
        quarantine) to a new file readable by its owner only, and marks the store as moved: the bot no longer starts
        in that data directory. It refuses while the bot runs. import puts such a file into this data directory as
        the bot's store (named as it was exported, or --as BOT): the bot is the same device there and loses nothing.
        It refuses to replace a store that was not moved away. The data directory is the configuration's (default
        bots.json) or --data DIR.

        \(exitStatus)
        """
    }

    private var runOptions: String {
        """
        RUN OPTIONS:
          -c, --config FILE            The configuration (default: bots.json in the current directory)
          --sandbox-port N             Port of the embedded sandbox when the server is "sandbox"
                                       (default \(EmbeddedSandbox.defaultPort); 0: any free port)
          --shutdown-timeout SECONDS   How long handlers and pending sends get on SIGINT/SIGTERM (default \(Int(BotCommand.RunOptions.defaultShutdownTimeout.components.seconds)))
          --http-bind ADDRESS          Where /healthz, /metrics and the control routes listen (default: httpBind of
                                       the configuration, else 127.0.0.1); off loopback, CHATTERBOTS_CONTROL_TOKEN
                                       (or CHATTERBOTS_CONTROL_TOKEN_FILE) must hold the control routes' token
          --shard INDEX/COUNT          Run only the bots of shard INDEX of COUNT (default: $\(ShardSelection.shardVariable), else every bot)
          --shard-from-hostname        Take INDEX from the host name's StatefulSet ordinal (bots-2: 2)
          --shard-count N              COUNT with --shard-from-hostname (default: $\(ShardSelection.countVariable);
                                       that variable alone also takes INDEX from the host name)
          --watch-config SECONDS       How often the configuration file is checked for a change, which reloads it
                                       (default \(Int(ConfigurationFileWatch.defaultInterval.components.seconds)); 0: never)
        """
    }

    private var checkOptions: String {
        """
        CHECK OPTIONS:
          -c, --config FILE            The configuration (default: bots.json in the current directory)
          --shards N                   Also print which bots each of N shards runs
          --from M                     With --shards: which bots move, from which shard to which, going from M to N
        """
    }

    private var sandboxOptions: String {
        """
        SANDBOX OPTIONS:
          -p, --port N                 The port (default \(EmbeddedSandbox.defaultPort); 0: any free port)
          -d, --data DIR               Keep the sandbox's database in DIR/sandbox/ (default: in memory)
          --console-port N             Serve the web console (chat and faults) on port N (0: any free port)
          --console-bind ADDRESS       Where the console listens (default 127.0.0.1)
        """
    }

    private var sayOptions: String {
        """
        SAY OPTIONS:
          --as USER                    Who sends (alice and bob need no --password on the sandbox)
          --to USER                    Who receives: a bot's account, e.g. echo_bot
          --password PASSWORD          The sender's password
          --server URL                 The REST base URL (default http://127.0.0.1:\(EmbeddedSandbox.defaultPort)/v1)
          --client-key KEY             The client key (default ck_sandbox)
          --wait SECONDS               How long to wait for the reply (default \(BotCommand.SayOptions.defaultWait.components.seconds); 0: do not wait)
        """
    }

    private var chatOptions: String {
        """
        CHAT OPTIONS:
          --as USER                    Who signs in (alice and bob need no --password on the sandbox)
          --password PASSWORD          The password (default: $\(BotCommandLine.chatPasswordVariable), then the test account's)
          -c, --config FILE            Take the server and data directory from FILE (default: bots.json, if present)
          --sandbox-port N             The port `run` gave the embedded sandbox (default \(EmbeddedSandbox.defaultPort))
          --api URL                    A server's REST base URL instead of a configuration (also --server)
          --ws URL                     Its realtime URL (default: --api with ws(s):// and /ws)
          --client-key KEY             Its client key (default ck_sandbox)
          -d, --data DIR               Where the device file is kept (default: the configuration's data directory)
        """
    }

    private var quarantineOptions: String {
        """
        QUARANTINE OPTIONS:
          list                         Show the quarantined work (ID, bot, handler, last attempt, attempts, text)
          retry BOT/N                  Hand the entry to its handler again (e.g. retry poison/3)
          drop BOT/N                   Forget the entry
          -b, --bot NAME               list: only this bot's entries
          -c, --config FILE            The configuration (default: bots.json in the current directory)
          --json                       Print JSON (the control routes' bodies) instead of text
        """
    }

    private var exitStatus: String {
        """
        EXIT STATUS:
          0  success (stopped on request)
          1  runtime failure (every bot stopped, a port in use, the shutdown timeout passed, no reply,
             an unknown quarantine ID, stores held by a process that cannot be reached)
          2  usage or configuration error
          A second SIGINT or SIGTERM exits at once with 128 + the signal number (130, 143).
        """
    }
}
