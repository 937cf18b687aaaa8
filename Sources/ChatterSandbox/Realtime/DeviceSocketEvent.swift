import ChatterBots
import Foundation

/// One authenticated socket of a device opening or closing, as the sandbox saw it: the evidence tests read to
/// tell a bot that kept its connection from one that reconnected (`GET /sandbox/devices/events`).
public struct DeviceSocketEvent: Sendable, Hashable, Codable {
    /// Whether the socket opened or closed.
    public enum Kind: String, Sendable, Hashable, Codable {
        case opened
        case closed
    }

    /// Increases by one per event, from 1: pass the last one seen as `afterSequence` to read only newer events.
    public var sequence: Int64
    public var kind: Kind
    public var deviceId: Device.ID
    public var userId: User.ID
    /// The account's username, so that a test can name the bot it means.
    public var username: String
    /// The sandbox's number for the socket: an open and its close share it.
    public var socketId: Int
    /// For a close: the code of the first close frame (1000 when the client closed normally, 1006 when the
    /// transport ended without one).
    public var closeCode: Int?
    /// For a close: who started it, `client`, `server` or `transport`.
    public var closedBy: String?
    public var at: Date

    public init(
        sequence: Int64, kind: Kind, deviceId: Device.ID, userId: User.ID, username: String, socketId: Int,
        closeCode: Int? = nil, closedBy: String? = nil, at: Date
    ) {
        self.sequence = sequence
        self.kind = kind
        self.deviceId = deviceId
        self.userId = userId
        self.username = username
        self.socketId = socketId
        self.closeCode = closeCode
        self.closedBy = closedBy
        self.at = at
    }
}

/// `GET /sandbox/devices/events`.
public struct DeviceSocketEventList: Sendable, Hashable, Codable {
    public var events: [DeviceSocketEvent]

    public init(events: [DeviceSocketEvent]) { self.events = events }
}

/// The socket events kept, oldest first, at most `capacity` of them (the oldest are forgotten first).
struct DeviceSocketEventLog: Sendable {
    static let capacity = 10_000
    private(set) var events: [DeviceSocketEvent] = []
    private var nextSequence: Int64 = 1

    mutating func record(_ make: (Int64) -> DeviceSocketEvent) {
        events.append(make(nextSequence))
        nextSequence += 1
        if events.count > Self.capacity { events.removeFirst(events.count - Self.capacity) }
    }
}
