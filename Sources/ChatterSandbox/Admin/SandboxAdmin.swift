import ChatterBots
import WebSocket

/// The sandbox's own controls, in process (the `/sandbox/` routes serve the same over HTTP): create accounts and
/// friendships in one call, read the pushes that would have gone to APNs, and inject faults into a device's
/// connection. Domain effects go through the service; socket effects through the hub.
public struct SandboxAdmin: Sendable {
    public let service: ChatterService
    public let hub: RealtimeHub

    public init(service: ChatterService, hub: RealtimeHub) {
        self.service = service
        self.hub = hub
    }

    /// Creates the seed's users, signs each in on one new device, applies their privacy, and makes the listed
    /// pairs friends. Stops at the first error (accounts created before it remain).
    public func createUsers(_ seed: SandboxSeed) async throws(ChatterErrorBody) -> SeededAccounts {
        var accounts: [SeededAccount] = []
        for spec in seed.users {
            let user = try await service.createUser(
                username: spec.username, password: spec.password, displayName: spec.displayName ?? spec.username)
            let session = try await service.login(
                LoginBody(
                    username: spec.username, password: spec.password,
                    device: spec.device ?? DeviceDescription(name: "sandbox-admin", platform: "sandbox")))
            let account = SeededAccount(user: user, password: spec.password, session: session)
            if let lastSeen = spec.lastSeen {
                _ = try await service.updateMe(account.caller, ProfileUpdateBody(privacy: PrivacySettings(lastSeen: lastSeen)))
                await hub.privacyChanged(of: account.user.id)
            }
            accounts.append(account)
        }
        let created = SeededAccounts(users: accounts)
        for friendship in seed.friendships {
            let first = created[friendship.first]?.user.id ?? User.ID(friendship.first)
            let second = created[friendship.second]?.user.id ?? User.ID(friendship.second)
            try await service.makeFriends(first, second)
        }
        return created
    }

    /// The pushes recorded so far, oldest first, optionally only those to `userId` and/or `deviceId`, and only
    /// those after `sequence` (to wait for new ones).
    public func pushes(
        to userId: User.ID? = nil, device deviceId: Device.ID? = nil, after sequence: Int64? = nil
    ) async throws(ChatterErrorBody) -> [RecordedPush] {
        try await service.recordedPushes(for: userId).filter { push in
            (deviceId == nil || push.deviceId == deviceId) && (sequence.map { push.sequence > $0 } ?? true)
        }
    }

    /// Performs `fault` on the device's connection (see `SandboxFault`); whatever the fault, an unknown device is
    /// `NOT_FOUND` (a typo in a device id must not pass silently). Token expiry and revocation change the store
    /// first, then close the device's sockets with 4001 / 4003.
    public func inject(_ fault: SandboxFault, into deviceId: Device.ID) async throws(ChatterErrorBody) {
        guard try await service.deviceExists(deviceId) else {
            throw ChatterErrorBody(code: .notFound, message: "No such device: \(deviceId).", details: ["field": "deviceId"])
        }
        switch fault {
        case .expireToken:
            _ = try await service.expireAccessTokens(of: deviceId)
        case .revokeDevice:
            _ = try await service.revokeDevice(deviceId)
        case .duplicateEvents(let types, _) where types.isEmpty || !types.isSubset(of: SandboxFault.duplicableEventTypes):
            let known = SandboxFault.duplicableEventTypes.sorted().joined(separator: ", ")
            throw .validation(field: "types", "Name one or more pushed events to duplicate, of: \(known).")
        case .dropSocket, .dropBeforeNextAck, .duplicateMessageNew, .duplicateEvents, .loseMessageNew, .reorderMessageNew, .delayAcks,
            .delayPresenceSnapshot, .close:
            break
        }
        await hub.apply(fault, to: deviceId)
    }

    /// Expires the device's access tokens and spends its refresh tokens without closing its sockets: a service that
    /// does not close a socket when its token expires (the seed does not say it does), and a device whose refresh
    /// token no longer works. Its REST requests are refused until it signs in again; its sockets go on.
    package func expireTokensKeepingSockets(of deviceId: Device.ID) async throws(ChatterErrorBody) {
        _ = try await service.expireAccessTokens(of: deviceId)
        _ = try await service.spendRefreshTokens(of: deviceId)
    }

    /// Makes the next `count` requests to `endpoint` answer `INTERNAL` (HTTP 500), as a service in a partial outage
    /// would, whoever sends them; `Int.max` until called again with 0, which disarms it. `.postMessage` also fails a
    /// realtime `message.send` (with an `error` frame): it is the same operation.
    public func failRequests(to endpoint: ChatterEndpoint, count: Int) {
        service.armFailures(of: endpoint, count: count)
    }

    /// Never sends the device's next `count` events of `type` (such as `conversation.created`; not `message.new`,
    /// which `SandboxFault.loseMessageNew` loses), for a test of a client that must do without one.
    package func loseEvents(_ type: String, count: Int, of deviceId: Device.ID) async {
        await hub.loseEvents(type, count: count, to: deviceId)
    }

    /// Makes the next `count` requests to `endpoint` answer `RATE_LIMITED` (HTTP 429, `Retry-After:
    /// retryAfterSeconds`), as a service whose limit for the device ran out would, without spending the device's
    /// own budget.
    package func rateLimitRequests(to endpoint: ChatterEndpoint, count: Int, retryAfterSeconds: Int) {
        service.armFailures(of: endpoint, count: count, error: SandboxAuthError.rateLimited(seconds: retryAfterSeconds).errorBody)
    }

    /// Keeps the next REST requests to `endpoint` unanswered until the returned hold is released, so a test can act
    /// while a client waits on one (`SandboxRequestHold.waitUntilHeld(count:)`). Replaces an earlier hold of the
    /// endpoint, which stays in force for the requests it already holds. Release every hold before the sandbox shuts
    /// down: a held request is answered only then.
    package func holdRequests(to endpoint: ChatterEndpoint) -> SandboxRequestHold {
        service.holdRequests(to: endpoint)
    }

    /// Disarms the device's lasting faults (duplicate, reorder, delayed or lost acks).
    public func clearFaults(of deviceId: Device.ID) async {
        await hub.clearFaults(of: deviceId)
    }

    /// Every authenticated socket opened and closed (with its close code), oldest first; only those after
    /// `sequence` when given.
    public func socketEvents(after sequence: Int64? = nil) async -> [DeviceSocketEvent] {
        await hub.socketEvents(after: sequence)
    }

    /// The devices that have an open socket now.
    public func connectedDevices() async -> Set<Device.ID> {
        await hub.connectedDevices
    }
}
