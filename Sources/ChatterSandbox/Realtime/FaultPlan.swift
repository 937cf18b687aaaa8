import ChatterBots

/// The lasting faults armed on devices, as a pure value: which frames to lose, duplicate, hold back or delay, and
/// whether the next `message.send` loses its ack. Immediate faults (drop, close, expire, revoke) are acted on at
/// once by the hub and never stored here.
///
/// Generic over the frame representation so the hub can pass encoded text and tests plain values.
public struct FaultPlan<Frame: Sendable>: Sendable {
    private struct DeviceFaults: Sendable {
        var dropBeforeNextAck = false
        /// Extra copies to send of each event, by its `type`.
        var duplicates: [String: Int] = [:]
        /// How many more events of each `type` (not `message.new`) to lose.
        var eventsToLose: [String: Int] = [:]
        var messagesToLose = 0
        var reorder = false
        var held: Frame?
        var ackDelay: Duration?
        var snapshotHold: SnapshotHold?

        var isEmpty: Bool {
            !dropBeforeNextAck && duplicates.isEmpty && eventsToLose.isEmpty && messagesToLose == 0 && !reorder && held == nil && ackDelay == nil
                && snapshotHold == nil
        }
    }

    private var devices: [Device.ID: DeviceFaults] = [:]

    /// How a connection's `presence.snapshot` is held back.
    public enum SnapshotHold: Sendable, Equatable {
        /// Sent this much later.
        case delayed(Duration)
        /// Never sent.
        case withheld
    }

    public init() {}

    /// Whether any lasting fault is armed on `deviceId`.
    public func hasFaults(_ deviceId: Device.ID) -> Bool { devices[deviceId] != nil }

    /// Arms a lasting fault on a device. Returns false for an immediate fault, which the caller performs itself.
    public mutating func arm(_ fault: SandboxFault, on deviceId: Device.ID) -> Bool {
        var faults = devices[deviceId] ?? DeviceFaults()
        switch fault {
        case .dropBeforeNextAck: faults.dropBeforeNextAck = true
        case .duplicateMessageNew(let copies): faults.duplicates["message.new"] = max(0, copies)
        case .duplicateEvents(let types, let copies):
            for type in types { faults.duplicates[type] = max(0, copies) }
        case .loseMessageNew(let count): faults.messagesToLose = max(0, count)
        case .reorderMessageNew: faults.reorder = true
        case .delayAcks(let delay): faults.ackDelay = delay
        case .delayPresenceSnapshot(let delay): faults.snapshotHold = delay.map { .delayed($0) } ?? .withheld
        case .dropSocket, .close, .expireToken, .revokeDevice: return false
        }
        devices[deviceId] = faults
        return true
    }

    /// Never sends the device's next `count` events of `type` (not `message.new`, which `loseMessageNew` loses): an
    /// event the service sends at least once while connected, lost on its way, for a test of a client without it.
    /// Replaces a count armed before for the type.
    package mutating func loseEvents(_ type: String, count: Int, on deviceId: Device.ID) {
        guard type != "message.new", count > 0 else { return }
        devices[deviceId, default: DeviceFaults()].eventsToLose[type] = count
    }

    /// Disarms every fault of the device; returns a `message.new` still held back by a reorder, to send now.
    public mutating func clear(_ deviceId: Device.ID) -> [Frame] {
        guard let faults = devices.removeValue(forKey: deviceId) else { return [] }
        return faults.held.map { [$0] } ?? []
    }

    /// Forgets a held-back frame of a device whose sockets all closed (the client recovers it with a sync, as
    /// after any lost event); the faults stay armed for its next connection.
    public mutating func discardHeld(_ deviceId: Device.ID) {
        devices[deviceId]?.held = nil
    }

    /// Consumes the one-shot "drop before the next ack": true when this `message.send` must lose its reply.
    public mutating func takeDropBeforeAck(_ deviceId: Device.ID) -> Bool {
        guard devices[deviceId]?.dropBeforeNextAck == true else { return false }
        devices[deviceId]?.dropBeforeNextAck = false
        if devices[deviceId]?.isEmpty == true { devices[deviceId] = nil }
        return true
    }

    /// How to hold back the `presence.snapshot` of a new connection of the device; nil to send it at once.
    public func snapshotHold(_ deviceId: Device.ID) -> SnapshotHold? { devices[deviceId]?.snapshotHold }

    /// How long to hold the device's acks; nil to send them at once.
    public func ackDelay(_ deviceId: Device.ID) -> Duration? { devices[deviceId]?.ackDelay }

    /// The frames to send for one event of `type` pushed to the device, in order: a `message.new` as
    /// `messageNew(_:to:)` says, any other event once, duplicated, or none while the device loses its type.
    public mutating func event(_ frame: Frame, type: String, to deviceId: Device.ID) -> [Frame] {
        if type == "message.new" { return messageNew(frame, to: deviceId) }
        if var faults = devices[deviceId], let left = faults.eventsToLose[type] {
            faults.eventsToLose[type] = left > 1 ? left - 1 : nil
            devices[deviceId] = faults.isEmpty ? nil : faults
            return []
        }
        guard let copies = devices[deviceId]?.duplicates[type], copies > 0 else { return [frame] }
        return Array(repeating: frame, count: 1 + copies)
    }

    /// The frames to send for one `message.new` to the device, in order: none while it loses them, duplicated,
    /// held back, or released with the frame held before it.
    public mutating func messageNew(_ frame: Frame, to deviceId: Device.ID) -> [Frame] {
        guard var faults = devices[deviceId] else { return [frame] }
        if faults.messagesToLose > 0 {
            faults.messagesToLose -= 1
            devices[deviceId] = faults.isEmpty ? nil : faults
            return []
        }
        var frames: [Frame]
        if faults.reorder {
            if let held = faults.held {
                faults.held = nil
                frames = [frame, held]
            } else {
                faults.held = frame
                frames = []
            }
        } else {
            frames = [frame]
        }
        if let copies = faults.duplicates["message.new"], copies > 0 {
            frames = frames.flatMap { Array(repeating: $0, count: 1 + copies) }
        }
        devices[deviceId] = faults
        return frames
    }
}
