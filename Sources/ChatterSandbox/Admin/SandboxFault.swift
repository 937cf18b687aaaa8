import ChatterBots
import Foundation

/// A misbehaviour the sandbox performs on purpose on one device's connection, so that a client's recovery
/// (reconnect, resend, dedupe, token refresh) can be tested. Set through `SandboxAdmin.inject(_:into:)` or
/// `POST /sandbox/devices/{deviceId}/faults` with the JSON form `{ "type": "dropSocket", … }`.
public enum SandboxFault: Sendable, Hashable {
    /// Drop the device's sockets now, without a close frame (the client sees 1006).
    case dropSocket
    /// When the device's next `message.send` arrives, store the message, then drop the socket before the ack
    /// (one shot). The client's resend with the same `clientMessageId` gets the ack of the stored message.
    case dropBeforeNextAck
    /// Send every `message.new` to the device `copies` extra times (until the faults are cleared); the same as
    /// `duplicateEvents(types: ["message.new"], copies:)`.
    case duplicateMessageNew(copies: Int)
    /// Send every event of these `types` (any of `duplicableEventTypes`, e.g. `message.updated`,
    /// `conversation.updated`, `friend_request.received`) to the device `copies` extra times, until the faults
    /// are cleared. Replies to the device's own frames (`message.ack`, `sync.response`, `error`) are never
    /// duplicated. Arming it again adds types; a type armed again takes the new `copies`.
    ///
    /// ```swift
    /// try await sandbox.admin.inject(.duplicateEvents(types: ["message.updated"], copies: 1), into: deviceId)
    /// ```
    case duplicateEvents(types: Set<String>, copies: Int)
    /// Never send the device's next `count` `message.new` frames (they are stored, and a sync or a page of
    /// `GET …/messages` returns them): a gap the client must notice and fill.
    case loseMessageNew(count: Int)
    /// Hold back each `message.new` to the device and send it after the following one, swapping pairs
    /// (until the faults are cleared; clearing sends a message still held).
    case reorderMessageNew
    /// Send the device's `message.ack` frames this much later (on the sandbox clock) until the faults are cleared.
    case delayAcks(Duration)
    /// Send the `presence.snapshot` of each of the device's next connections this much later (on the sandbox
    /// clock), or never when nil, until the faults are cleared: a client must not wait for it forever. JSON:
    /// `{ "type": "delayPresenceSnapshot", "milliseconds": 3000 }`, without `milliseconds` for never.
    case delayPresenceSnapshot(Duration?)
    /// Close the device's sockets now with this code and reason.
    case close(code: UInt16, reason: String)
    /// Expire the device's access tokens now and close its sockets with 4001; the client must refresh.
    case expireToken
    /// Revoke the device (as a logout would) and close its sockets with 4003.
    case revokeDevice

    /// The `type` of the JSON form.
    public var type: String {
        switch self {
        case .dropSocket: "dropSocket"
        case .dropBeforeNextAck: "dropBeforeNextAck"
        case .duplicateMessageNew: "duplicateMessageNew"
        case .duplicateEvents: "duplicateEvents"
        case .loseMessageNew: "loseMessageNew"
        case .reorderMessageNew: "reorderMessageNew"
        case .delayAcks: "delayAcks"
        case .delayPresenceSnapshot: "delayPresenceSnapshot"
        case .close: "close"
        case .expireToken: "expireToken"
        case .revokeDevice: "revokeDevice"
        }
    }

    /// The events the service pushes on its own, which `duplicateEvents` can repeat.
    public static let duplicableEventTypes: Set<String> = [
        "message.new", "message.updated", "receipt.updated", "typing", "presence", "presence.snapshot",
        "conversation.created", "conversation.updated", "conversation.removed", "friend_request.received",
        "friend_request.accepted", "friend_request.cancelled", "friend.removed", "user.updated",
    ]
}

extension SandboxFault: Codable {
    enum CodingKeys: String, CodingKey {
        case type, copies, types, count, milliseconds, code, reason
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "dropSocket": self = .dropSocket
        case "dropBeforeNextAck": self = .dropBeforeNextAck
        case "duplicateMessageNew":
            let copies = try container.decodeIfPresent(Int.self, forKey: .copies) ?? 1
            guard (1...100).contains(copies) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .copies, in: container, debugDescription: "copies must be between 1 and 100")
            }
            self = .duplicateMessageNew(copies: copies)
        case "duplicateEvents":
            let copies = try container.decodeIfPresent(Int.self, forKey: .copies) ?? 1
            guard (1...100).contains(copies) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .copies, in: container, debugDescription: "copies must be between 1 and 100")
            }
            let types = try container.decode(Set<String>.self, forKey: .types)
            guard !types.isEmpty, types.isSubset(of: Self.duplicableEventTypes) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .types, in: container,
                    debugDescription: "types lists one or more of \(Self.duplicableEventTypes.sorted().joined(separator: ", "))")
            }
            self = .duplicateEvents(types: types, copies: copies)
        case "loseMessageNew":
            let count = try container.decodeIfPresent(Int.self, forKey: .count) ?? 1
            guard (1...10_000).contains(count) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .count, in: container, debugDescription: "count must be between 1 and 10000")
            }
            self = .loseMessageNew(count: count)
        case "reorderMessageNew": self = .reorderMessageNew
        case "delayAcks":
            let milliseconds = try container.decode(Int.self, forKey: .milliseconds)
            guard milliseconds >= 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .milliseconds, in: container, debugDescription: "milliseconds must not be negative")
            }
            self = .delayAcks(.milliseconds(milliseconds))
        case "delayPresenceSnapshot":
            let milliseconds = try container.decodeIfPresent(Int.self, forKey: .milliseconds)
            guard (milliseconds ?? 0) >= 0 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .milliseconds, in: container, debugDescription: "milliseconds must not be negative")
            }
            self = .delayPresenceSnapshot(milliseconds.map { .milliseconds($0) })
        case "close":
            let code = try container.decode(UInt16.self, forKey: .code)
            guard code == 1000 || (1001...1003).contains(code) || (1007...1014).contains(code)
                || (3000...4999).contains(code)
            else {
                throw DecodingError.dataCorruptedError(
                    forKey: .code, in: container, debugDescription: "\(code) cannot be sent in a close frame")
            }
            let reason = try container.decodeIfPresent(String.self, forKey: .reason) ?? ""
            guard reason.utf8.count <= 123 else {
                throw DecodingError.dataCorruptedError(
                    forKey: .reason, in: container, debugDescription: "a close reason holds at most 123 bytes")
            }
            self = .close(code: code, reason: reason)
        case "expireToken": self = .expireToken
        case "revokeDevice": self = .revokeDevice
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown fault type '\(type)'")
        }
    }

    private static func milliseconds(of duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .duplicateMessageNew(let copies): try container.encode(copies, forKey: .copies)
        case .duplicateEvents(let types, let copies):
            try container.encode(types.sorted(), forKey: .types)
            try container.encode(copies, forKey: .copies)
        case .loseMessageNew(let count): try container.encode(count, forKey: .count)
        case .delayAcks(let delay):
            try container.encode(Self.milliseconds(of: delay), forKey: .milliseconds)
        case .delayPresenceSnapshot(let delay):
            try container.encodeIfPresent(delay.map(Self.milliseconds(of:)), forKey: .milliseconds)
        case .close(let code, let reason):
            try container.encode(code, forKey: .code)
            try container.encode(reason, forKey: .reason)
        case .dropSocket, .dropBeforeNextAck, .reorderMessageNew, .expireToken, .revokeDevice:
            break
        }
    }
}
