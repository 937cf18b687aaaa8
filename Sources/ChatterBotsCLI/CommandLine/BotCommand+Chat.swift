extension BotCommand {
    /// Options of `chat`, the terminal client. Which server: `--api` (with `--ws` and `--client-key`), else the
    /// configuration's server (`--config`, or `bots.json` when there is one), else the embedded sandbox of `run`.
    public struct ChatOptions: Sendable, Equatable {
        /// `--as USER`: who signs in.
        public var username: String
        /// `--password PASSWORD`; nil: `$CHATTER_PASSWORD`, then the password of the sandbox test account.
        public var password: String?
        /// `--config FILE`: take the server and the data directory from this configuration.
        public var configuration: String?
        /// `--sandbox-port N`: where `run` started the embedded sandbox; nil: `EmbeddedSandbox.defaultPort`.
        public var sandboxPort: Int?
        /// `--api URL` (or `--server URL`): the REST base URL of a server not described by a configuration.
        public var apiURL: String?
        /// `--ws URL`: the realtime URL; nil: the REST URL with `ws(s)://` and `/ws` appended.
        public var webSocketURL: String?
        /// `--client-key KEY`; nil: the sandbox's key.
        public var clientKey: String?
        /// `--data DIR`: where the device file is kept; nil: the configuration's data directory (or `./data`).
        public var dataDirectory: String?

        public init(
            username: String, password: String? = nil, configuration: String? = nil, sandboxPort: Int? = nil,
            apiURL: String? = nil, webSocketURL: String? = nil, clientKey: String? = nil, dataDirectory: String? = nil
        ) {
            self.username = username
            self.password = password
            self.configuration = configuration
            self.sandboxPort = sandboxPort
            self.apiURL = apiURL
            self.webSocketURL = webSocketURL
            self.clientKey = clientKey
            self.dataDirectory = dataDirectory
        }
    }
}
