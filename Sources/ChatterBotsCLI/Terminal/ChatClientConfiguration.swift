import BotRuntime
import ChatterBots
import Foundation

/// Who the terminal client signs in as, where, and how it behaves.
public struct ChatClientConfiguration: Sendable {
    /// The Chatter service (or sandbox) to talk to.
    public var server: ChatterServerConfiguration
    public var username: String
    /// Used to sign in (at start, and again when the device's session cannot be refreshed); never written to disk.
    public var password: String
    /// Where the device file lives (`<dataDirectory>/chat/<username>.json`), so repeated runs sign in as one
    /// device; nil signs in as a new device every run.
    public var dataDirectory: URL?
    /// How the device is named in the person's device list.
    public var device: DeviceDescription
    /// How many recent messages opening a conversation shows.
    public var historyLimit: Int
    /// The zone message times are shown in.
    public var timeZone: TimeZone
    /// The reconnect backoff (the seed's 1, 2, 4, 8, 16, 30 s with ±20 % jitter by default).
    public var reconnectPolicy: ReconnectPolicy
    /// Timeouts of the realtime connection and the clock its waits, the heartbeat and the backoff read.
    public var connectionOptions: RealtimeConnectionOptions
    /// How long one REST request may take in all, in real time: the production bounds unless a test gives its hang
    /// guards.
    package var restRequestTimeouts = RESTRequestTimeouts()

    public init(
        server: ChatterServerConfiguration, username: String, password: String, dataDirectory: URL? = nil,
        device: DeviceDescription = ChatClientConfiguration.defaultDevice, historyLimit: Int = 20,
        timeZone: TimeZone = .current, reconnectPolicy: ReconnectPolicy = ReconnectPolicy(),
        connectionOptions: RealtimeConnectionOptions = RealtimeConnectionOptions()
    ) {
        self.server = server
        self.username = username
        self.password = password
        self.dataDirectory = dataDirectory
        self.device = device
        self.historyLimit = historyLimit
        self.timeZone = timeZone
        self.reconnectPolicy = reconnectPolicy
        self.connectionOptions = connectionOptions
    }

    /// The device the terminal client signs in as unless told otherwise.
    public static let defaultDevice = DeviceDescription(name: "ChatterBots terminal", platform: "terminal")
}
