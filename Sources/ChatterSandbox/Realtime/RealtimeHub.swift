import ChatterBots
import Foundation
import WebSocket

/// The sandbox's realtime endpoint (`/v1/ws`): the registry of open sockets per device and user, the delivery of
/// events to them, presence, typing, the push decision and the injected faults.
///
/// Each socket runs `serve(_:)` in its connection's task: authenticate (close 4001/4002/4003/4008 on refusal),
/// `session.ready`, `presence.snapshot`, then the client's frames one at a time. Storage and domain rules are
/// the service's; the hub only decides who hears what. Every timer (idle close, typing expiry, presence grace,
/// delayed acks) sleeps on the injected clock.
public actor RealtimeHub: SandboxEventSink {
    public nonisolated let service: ChatterService
    public nonisolated let clock: any ChatterClock
    public nonisolated let configuration: RealtimeConfiguration

    private var socketsByDevice: [Device.ID: [Int: RealtimeSocket]] = [:]
    /// Sockets authenticated but not announced yet: revocations and faults find them, events do not.
    private var openingSockets: [Device.ID: [Int: RealtimeSocket]] = [:]
    private var devicesByUser: [User.ID: Set<Device.ID>] = [:]
    private var presence: PresenceTracker
    /// For each online user, the friends who were told they are online (their audience at the time, kept up to
    /// date by privacy changes).
    private var toldOnline: [User.ID: Set<User.ID>] = [:]
    private var typing: TypingTracker
    /// Conversations with a message send between its commit and its fan-out, and the sends waiting their turn.
    private var sendsInProgress: [Conversation.ID: [CheckedContinuation<Void, Never>]] = [:]
    private var faults = FaultPlan<String>()
    private var nextSocketID = 0
    private var timer: (deadline: Date, generation: Int, task: Task<Void, Never>)?
    private var timerGeneration = 0
    private var isShutDown = false
    private var socketEvents = DeviceSocketEventLog()
    /// The user of each device that opened a socket, and how many events went to each user's sockets.
    private var userOfDevice: [Device.ID: User.ID] = [:]
    private var eventsSent: [User.ID: Int] = [:]

    /// A hub over `service`, with timers on `clock`.
    public init(service: ChatterService, clock: any ChatterClock, configuration: RealtimeConfiguration = .init()) {
        self.service = service
        self.clock = clock
        self.configuration = configuration
        self.presence = PresenceTracker(gracePeriod: configuration.presenceGracePeriod)
        self.typing = TypingTracker(timeout: configuration.typingTimeout)
    }

    // MARK: Observing

    /// The devices that have at least one open (authenticated) socket.
    public var connectedDevices: Set<Device.ID> { Set(socketsByDevice.keys) }

    /// The authenticated sockets opened and closed so far (the newest `DeviceSocketEventLog.capacity`), oldest
    /// first, only those after `sequence` when given.
    public func socketEvents(after sequence: Int64? = nil) -> [DeviceSocketEvent] {
        guard let sequence else { return socketEvents.events }
        return socketEvents.events.filter { $0.sequence > sequence }
    }

    /// Whether `deviceId` has an open socket (so it receives events, not pushes).
    public func isConnected(_ deviceId: Device.ID) -> Bool { socketsByDevice[deviceId] != nil }

    /// When the typing of `userId` in `conversationId` runs out unless repeated; nil when they are not typing.
    package func typingExpiry(of userId: User.ID, in conversationId: Conversation.ID) -> Date? {
        typing.expiry(of: userId, in: conversationId)
    }

    /// How many events went to sockets of `userId` so far (replies to its requests not counted): a test compares
    /// two readings to know whether the user's client got anything new to read in between.
    package func eventsSent(to userId: User.ID) -> Int { eventsSent[userId, default: 0] }

    /// Counts an event written to a socket of `deviceId`.
    private func countEvent(to deviceId: Device.ID) {
        guard let user = userOfDevice[deviceId] else { return }
        eventsSent[user, default: 0] += 1
    }

    /// Whether the user counts as online for presence (an open socket, or within the grace period).
    public func isOnline(_ userId: User.ID) -> Bool { presence.isOnline(userId) }

    // MARK: Serving a socket

    /// Runs one upgraded connection of `/v1/ws?clientKey=&token=` to its end.
    public nonisolated func serve(_ connection: WebSocketConnection) async {
        let socket = RealtimeSocket(
            id: await makeSocketID(), connection: connection,
            session: RealtimeSession(openedAt: clock.now, configuration: configuration))
        async let writer: Void = socket.runWriter()
        let clientKey = connection.handshakeRequest.queryValue("clientKey") ?? ""
        let token = connection.handshakeRequest.queryValue("token") ?? ""
        do throws(SandboxAuthError) {
            let caller = try await service.authenticate(clientKey: clientKey, accessToken: token)
            if let username = await open(socket, as: caller, token: token) {
                let idleWatch = Task { await watchIdle(socket) }
                let charge = { [service] () throws(SandboxAuthError) in try service.admitDeviceRequest(caller.deviceId) }
                for await message in connection.messages {
                    for (command, replyTo) in socket.received(message, at: clock.now, charge: charge) {
                        await execute(command, replyTo: replyTo, for: caller, on: socket)
                    }
                }
                idleWatch.cancel()
                socket.transportClosed()
                await closed(socket, of: caller)
                await writer
                await recordClose(of: socket, as: caller, username: username, info: await connection.closeInfo)
                return
            } else {
                socket.transportClosed()
            }
        } catch {
            socket.close(code: error.closeCode, reason: error.closeReason)
        }
        await writer
        _ = await connection.closeInfo
    }

    private func makeSocketID() -> Int {
        nextSocketID += 1
        return nextSocketID
    }

    private nonisolated func watchIdle(_ socket: RealtimeSocket) async {
        while let deadline = socket.idleDeadline {
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return
            }
            socket.idleTimerFired(at: clock.now)
        }
    }

    /// Announces an authenticated socket (`session.ready`, `presence.snapshot`), registers it, arms its token's
    /// expiry, and tells the user's audience they came online. Returns the user's username; nil when the socket was
    /// closed meanwhile.
    private func open(_ socket: RealtimeSocket, as caller: SandboxCaller, token: String) async -> String? {
        // From here on revocations, re-sign-ins and faults find the socket. One that happened between
        // `authenticate` and this line found nothing to close, so the token is checked again now.
        openingSockets[caller.deviceId, default: [:]][socket.id] = socket
        defer {
            openingSockets[caller.deviceId]?.removeValue(forKey: socket.id)
            if openingSockets[caller.deviceId]?.isEmpty == true { openingSockets[caller.deviceId] = nil }
        }
        let grant: SandboxAccessGrant
        do throws(SandboxAuthError) {
            grant = try await service.verifyAccessToken(token)
        } catch {
            socket.close(code: error.closeCode, reason: error.closeReason)
            return nil
        }

        // Best effort: presence is best effort by contract, so a failed lookup yields an empty snapshot or no
        // announcement rather than a refused session.
        let visibleFriends = (try? await service.visibleFriendIDs(for: caller.userId)) ?? []
        var lastSeen: [User.ID: Timestamp] = [:]
        for friend in visibleFriends {
            if let seen = try? await service.lastSeen(of: friend) { lastSeen[friend] = seen }
        }
        let audience = (try? await service.presenceAudience(of: caller.userId)) ?? []
        let username = (try? await service.user(caller, caller.userId))?.username ?? ""
        guard !isShutDown else {
            socket.close(code: .goingAway, reason: Self.restartCloseReason)
            return nil
        }

        // From here on no suspension: the registration, the snapshot and the online announcement are one step.
        guard socket.announce(userId: caller.userId, deviceId: caller.deviceId, at: clock.now) else { return nil }
        let snapshot = visibleFriends.map { friend in
            presence.isOnline(friend)
                ? Presence(userId: friend, isOnline: true, lastSeenAt: nil)
                : Presence(userId: friend, isOnline: false, lastSeenAt: lastSeen[friend])
        }
        userOfDevice[caller.deviceId] = caller.userId
        if let text = ServerFrame(.presenceSnapshot(snapshot)).encodedText {
            let frames = faults.event(text, type: "presence.snapshot", to: caller.deviceId)
            countEvent(to: caller.deviceId)
            switch faults.snapshotHold(caller.deviceId) {
            case nil:
                socket.send(encoded: frames)
            case .delayed(let delay):
                let due = clock.now.addingTimeInterval(delay.timeInterval)
                socket.spawn { [clock] in
                    do {
                        try await clock.sleep(until: due)
                    } catch {
                        return
                    }
                    socket.send(encoded: frames)
                }
            case .withheld:
                break
            }
        }
        socketsByDevice[caller.deviceId, default: [:]][socket.id] = socket
        devicesByUser[caller.userId, default: []].insert(caller.deviceId)
        if presence.socketOpened(by: caller.userId) {
            toldOnline[caller.userId] = Set(audience)
            send(ServerFrame(.presence(Presence(userId: caller.userId, isOnline: true, lastSeenAt: nil))), to: audience)
        }
        closeWhenExpired(socket, at: grant.expiresAt)
        rearmTimer()
        socketEvents.record {
            DeviceSocketEvent(
                sequence: $0, kind: .opened, deviceId: caller.deviceId, userId: caller.userId, username: username,
                socketId: socket.id, at: clock.now)
        }
        service.store.changes.noteChange()
        return username
    }

    /// Closes the socket with 4001 when the token it was opened with expires (a refresh gives the client a new
    /// token for its next connection; it does not extend this one).
    private nonisolated func closeWhenExpired(_ socket: RealtimeSocket, at expiry: Timestamp) {
        socket.spawn { [clock] in
            do {
                try await clock.sleep(until: expiry.date)
            } catch {
                return
            }
            socket.close(code: SandboxAuthError.expired.closeCode, reason: SandboxAuthError.expired.closeReason)
        }
    }

    /// Records how an announced socket closed.
    private func recordClose(of socket: RealtimeSocket, as caller: SandboxCaller, username: String, info: WebSocketCloseInfo) {
        let closedBy = switch info.initiator {
        case .peer: "client"
        case .local: "server"
        case .transport: "transport"
        }
        socketEvents.record {
            DeviceSocketEvent(
                sequence: $0, kind: .closed, deviceId: caller.deviceId, userId: caller.userId, username: username,
                socketId: socket.id, closeCode: Int(info.code.rawValue), closedBy: closedBy, at: clock.now)
        }
        service.store.changes.noteChange()
    }

    /// Unregisters a socket whose transport ended; its user goes offline after the grace period if it was the last.
    private func closed(_ socket: RealtimeSocket, of caller: SandboxCaller) {
        guard socketsByDevice[caller.deviceId]?.removeValue(forKey: socket.id) != nil else { return }
        defer { service.store.changes.noteChange() }
        if socketsByDevice[caller.deviceId]?.isEmpty == true {
            socketsByDevice[caller.deviceId] = nil
            devicesByUser[caller.userId]?.remove(caller.deviceId)
            if devicesByUser[caller.userId]?.isEmpty == true { devicesByUser[caller.userId] = nil }
            faults.discardHeld(caller.deviceId)
        }
        if presence.socketClosed(by: caller.userId, at: clock.now) != nil {
            rearmTimer()
        }
    }

    // MARK: Client commands

    private nonisolated func execute(
        _ command: RealtimeCommand, replyTo: String?, for caller: SandboxCaller, on socket: RealtimeSocket
    ) async {
        do throws(ChatterErrorBody) {
            switch command {
            case .sendMessage(let send):
                await sendMessage(send, replyTo: replyTo, for: caller, on: socket)
            case .receiptDelivered(let position):
                let outcome = try await service.markDelivered(caller, conversationId: position.conversationId, seq: position.seq)
                await deliver(outcome.deliveries)
            case .receiptRead(let position):
                let outcome = try await service.markRead(caller, conversationId: position.conversationId, seq: position.seq)
                await deliver(outcome.deliveries)
            case .typingStart(let conversationId):
                try await service.requireMember(caller.userId, of: conversationId)
                await typingStarted(caller.userId, in: conversationId)
            case .typingStop(let conversationId):
                try await service.requireMember(caller.userId, of: conversationId)
                await typingStopped(caller.userId, in: conversationId)
            case .sync(let request):
                let response = try await service.sync(caller, request)
                socket.send(ServerFrame(.syncResponse(response), replyTo: replyTo))
            }
        } catch {
            socket.send(ServerFrame(.error(error), replyTo: replyTo))
        }
    }

    /// `message.send`: store through the service, deliver `message.new` to the other devices (and record the
    /// pushes), then answer with the ack (or error) unless a fault eats it. Delivering first means that once the
    /// sender holds the ack, every other socket has been handed the message and every push is recorded; answering
    /// before the conversation's next send is delivered means that the sender's socket gets the ack of `seq` n
    /// before the `message.new` of n + 1 (a bot's quick reply would otherwise overtake the ack of what it answers).
    private nonisolated func sendMessage(
        _ send: MessageSend, replyTo: String?, for caller: SandboxCaller, on socket: RealtimeSocket
    ) async {
        do throws(ChatterErrorBody) {
            _ = try await deliverInOrder(in: send.conversationId) { () async throws(ChatterErrorBody) in
                try service.failIfArmed(.postMessage)
                return try await service.sendMessage(caller, send)
            } answering: { ack in
                await self.answer(ServerFrame(.messageAck(ack), replyTo: replyTo), from: caller, on: socket)
            }
        } catch {
            await answer(ServerFrame(.error(error), replyTo: replyTo), from: caller, on: socket)
        }
    }

    /// Sends `reply` to the sender, unless a fault drops or delays it.
    private nonisolated func answer(_ reply: ServerFrame, from caller: SandboxCaller, on socket: RealtimeSocket) async {
        switch await replyPolicy(for: caller.deviceId) {
        case .drop:
            socket.abort()
        case .now:
            socket.send(reply)
        case .after(let delay):
            // Due from now, not from when the task first runs: a test that advances a manual clock right after
            // sending must find the reply due.
            let due = clock.now.addingTimeInterval(delay.timeInterval)
            socket.spawn { [clock] in
                do {
                    try await clock.sleep(until: due)
                } catch {
                    return
                }
                socket.send(reply)
            }
        }
    }

    private enum ReplyPolicy { case now, after(Duration), drop }

    private func replyPolicy(for deviceId: Device.ID) -> ReplyPolicy {
        if faults.takeDropBeforeAck(deviceId) { return .drop }
        if let delay = faults.ackDelay(deviceId) { return .after(delay) }
        return .now
    }

    // MARK: Delivering events (SandboxEventSink)

    /// Sends each event to its recipients' open sockets (except the excluded device) and records pushes for the
    /// recipients' socketless devices that have a push token; a device never gets both.
    public func deliver(_ deliveries: [SandboxDelivery]) async {
        for delivery in deliveries {
            await deliver(delivery)
        }
    }

    /// Runs one message send into the conversation and its fan-out while no other send into it runs: two senders'
    /// commits can otherwise reach the hub in the other order, and a device would get `seq` 9 before 8.
    public nonisolated func deliverInOrder<Value: Sendable>(
        in conversationId: Conversation.ID, _ send: () async throws(ChatterErrorBody) -> SandboxOutcome<Value>
    ) async throws(ChatterErrorBody) -> SandboxOutcome<Value> {
        try await deliverInOrder(in: conversationId, send, answering: { _ in })
    }

    /// As ``deliverInOrder(in:_:)``; `answer` runs with the send's value after its fan-out and before the
    /// conversation's next send starts (not when the send fails).
    nonisolated func deliverInOrder<Value: Sendable>(
        in conversationId: Conversation.ID, _ send: () async throws(ChatterErrorBody) -> SandboxOutcome<Value>,
        answering answer: (Value) async -> Void
    ) async throws(ChatterErrorBody) -> SandboxOutcome<Value> {
        await beginSend(in: conversationId)
        do {
            let outcome = try await send()
            await deliver(outcome.deliveries)
            await answer(outcome.value)
            await endSend(in: conversationId)
            return outcome
        } catch {
            await endSend(in: conversationId)
            throw error
        }
    }

    private func beginSend(in conversationId: Conversation.ID) async {
        guard sendsInProgress[conversationId] != nil else {
            sendsInProgress[conversationId] = []
            return
        }
        await withCheckedContinuation { sendsInProgress[conversationId, default: []].append($0) }
    }

    /// Hands the conversation to the next waiting send, in arrival order.
    private func endSend(in conversationId: Conversation.ID) {
        guard var waiting = sendsInProgress[conversationId], !waiting.isEmpty else {
            sendsInProgress[conversationId] = nil
            return
        }
        let next = waiting.removeFirst()
        sendsInProgress[conversationId] = waiting
        next.resume()
    }

    private func deliver(_ delivery: SandboxDelivery) async {
        // Socket fan-out first, without suspending, so events reach each socket in the order they were delivered.
        var reached: Set<Device.ID> = []
        if let text = ServerFrame(delivery.event).encodedText {
            let type = delivery.event.type
            for deviceId in devices(of: delivery.recipients) where deviceId != delivery.excludedDevice {
                guard let sockets = socketsByDevice[deviceId] else { continue }
                let texts = faults.event(text, type: type, to: deviceId)
                for socket in sockets.values { socket.send(encoded: texts) }
                countEvent(to: deviceId)
                reached.insert(deviceId)
            }
        }
        guard let trigger = delivery.pushTrigger else { return }
        let pushRecipients = Self.pushRecipients(of: delivery, trigger: trigger)
        guard !pushRecipients.isEmpty, let candidates = try? await service.pushableDevices(ofUsers: pushRecipients) else { return }
        let targets = candidates.filter { device in
            device.pushToken != nil && device.id != delivery.excludedDevice && !reached.contains(device.id)
                && socketsByDevice[device.id] == nil
        }
        guard !targets.isEmpty else { return }
        // The service records the pushes (muted conversations and revoked devices get none); recording is the
        // whole effect, so a failure here only means no push, as with a real APNs outage.
        _ = try? await service.pushes(for: trigger, to: targets.map(\.id))
    }

    /// Who may get a push for the delivery: its recipients, without the author of a new message (the seed pushes
    /// a new message to every OTHER member's devices).
    static func pushRecipients(of delivery: SandboxDelivery, trigger: PushTrigger) -> [User.ID] {
        var seen: Set<User.ID> = []
        var recipients = delivery.recipients.filter { seen.insert($0).inserted }
        if case .newMessage(let message) = trigger {
            recipients.removeAll { $0 == message.senderId }
        }
        return recipients
    }

    /// The devices with open sockets of `users`, each once.
    private func devices(of users: [User.ID]) -> [Device.ID] {
        var seen: Set<Device.ID> = []
        var result: [Device.ID] = []
        for user in users {
            for device in devicesByUser[user] ?? [] where seen.insert(device).inserted {
                result.append(device)
            }
        }
        return result
    }

    /// Sends `frame` to every open socket of `users`.
    private func send(_ frame: ServerFrame, to users: [User.ID], excludingDevice excluded: Device.ID? = nil) {
        guard let text = frame.encodedText else { return }
        for deviceId in devices(of: users) where deviceId != excluded {
            guard let sockets = socketsByDevice[deviceId] else { continue }
            let texts = faults.event(text, type: frame.event.type, to: deviceId)
            for socket in sockets.values { socket.send(encoded: texts) }
            countEvent(to: deviceId)
        }
    }

    /// The device was logged out or revoked (4003), or signed in again so that its old tokens died (4001): its
    /// sockets, open or still opening, close with the reason's code.
    public func endSessions(of deviceId: Device.ID, because reason: SandboxAuthError) async {
        closeSockets(of: deviceId, code: reason.closeCode, reason: reason.closeReason)
    }

    /// The user's privacy changed: while they are online, friends who may no longer see them get
    /// `presence {isOnline:false}` (without `lastSeenAt`, which they may not see either), and friends who now may
    /// get `presence {isOnline:true}`. Offline users need nothing: friends see them offline already.
    public func privacyChanged(of userId: User.ID) async {
        guard presence.isOnline(userId), let audience = try? await service.presenceAudience(of: userId),
            presence.isOnline(userId)
        else { return }
        let before = toldOnline[userId] ?? []
        let now = Set(audience)
        toldOnline[userId] = now
        send(
            ServerFrame(.presence(Presence(userId: userId, isOnline: false, lastSeenAt: nil))),
            to: before.subtracting(now).sorted())
        send(ServerFrame(.presence(Presence(userId: userId, isOnline: true, lastSeenAt: nil))), to: audience.filter { !before.contains($0) })
    }

    // MARK: Typing

    private func typingStarted(_ userId: User.ID, in conversationId: Conversation.ID) async {
        let change = typing.start(userId, in: conversationId, at: clock.now)
        rearmTimer()
        service.store.changes.noteChange()
        if let change { await announce(change) }
    }

    private func typingStopped(_ userId: User.ID, in conversationId: Conversation.ID) async {
        let change = typing.stop(userId, in: conversationId)
        rearmTimer()
        if let change { await announce(change) }
    }

    /// Sends a typing change to the conversation's other members.
    private func announce(_ change: TypingIndicator) async {
        // Typing is best effort by contract: without the member list nobody hears it.
        guard let members = try? await service.conversationMemberIDs(change.conversationId) else { return }
        send(ServerFrame(.typing(change)), to: members.filter { $0 != change.userId })
    }

    // MARK: Timers (typing expiry, presence grace)

    /// Keeps one task sleeping until the earliest typing or presence deadline.
    private func rearmTimer() {
        let next = [presence.nextDeadline, typing.nextDeadline].compactMap { $0 }.min()
        if let timer, timer.deadline == next { return }
        timer?.task.cancel()
        timer = nil
        guard let next, !isShutDown else { return }
        timerGeneration += 1
        let generation = timerGeneration
        let task = Task { [clock] in
            do {
                try await clock.sleep(until: next)
            } catch {
                return
            }
            await self.timerFired(generation: generation)
        }
        timer = (next, generation, task)
    }

    private func timerFired(generation: Int) async {
        guard timer?.generation == generation else { return }
        timer = nil
        let now = clock.now
        let wentOffline = presence.expire(at: now)
        let stoppedTyping = typing.expire(at: now)
        rearmTimer()
        for change in stoppedTyping { await announce(change) }
        for offline in wentOffline { await announceOffline(offline) }
    }

    private func announceOffline(_ offline: PresenceTracker.WentOffline) async {
        let lastSeenAt = Timestamp(offline.lastSeenAt)
        try? await service.setLastSeen(offline.userId, at: lastSeenAt)
        let audience = (try? await service.presenceAudience(of: offline.userId)) ?? []
        // Reconnected while the audience was looked up: friends saw no offline, so they must not see one now.
        guard !presence.isOnline(offline.userId) else { return }
        toldOnline[offline.userId] = nil
        send(ServerFrame(.presence(Presence(userId: offline.userId, isOnline: false, lastSeenAt: lastSeenAt))), to: audience)
    }

    // MARK: Faults

    /// Loses the device's next `count` events of `type` (`FaultPlan.loseEvents(_:count:on:)`).
    package func loseEvents(_ type: String, count: Int, to deviceId: Device.ID) {
        faults.loseEvents(type, count: count, on: deviceId)
    }

    /// Carries out the socket side of a fault: drop or close the device's sockets now (4001 for an expired
    /// token, 4003 for a revoked device), or arm a lasting fault (duplicate, reorder, delayed or lost acks).
    /// `SandboxAdmin.inject` changes the store first where the fault needs it.
    func apply(_ fault: SandboxFault, to deviceId: Device.ID) {
        switch fault {
        case .dropSocket:
            for socket in sockets(of: deviceId) { socket.abort() }
        case .close(let code, let reason):
            closeSockets(of: deviceId, code: WebSocketCloseCode(code), reason: reason)
        case .expireToken:
            closeSockets(of: deviceId, code: .chatterTokenInvalid, reason: SandboxAuthError.expired.closeReason)
        case .revokeDevice:
            closeSockets(of: deviceId, code: .chatterSessionRevoked, reason: SandboxAuthError.deviceRevoked.closeReason)
        case .dropBeforeNextAck, .duplicateMessageNew, .duplicateEvents, .loseMessageNew, .reorderMessageNew, .delayAcks,
            .delayPresenceSnapshot:
            _ = faults.arm(fault, on: deviceId)
        }
    }

    /// Disarms the device's lasting faults; a `message.new` held back by a reorder is sent now.
    public func clearFaults(of deviceId: Device.ID) {
        let released = faults.clear(deviceId)
        guard !released.isEmpty else { return }
        for socket in socketsByDevice[deviceId]?.values ?? [:].values { socket.send(encoded: released) }
        countEvent(to: deviceId)
    }

    /// Closes every socket of the device, open or still opening, with `code` and `reason`.
    public func closeSockets(of deviceId: Device.ID, code: WebSocketCloseCode, reason: String) {
        for socket in sockets(of: deviceId) {
            socket.close(code: code, reason: reason)
        }
    }

    /// The device's sockets, announced or still opening.
    private func sockets(of deviceId: Device.ID) -> [RealtimeSocket] {
        Array((socketsByDevice[deviceId] ?? [:]).values) + Array((openingSockets[deviceId] ?? [:]).values)
    }

    // MARK: Shutdown

    /// The reason of the 1001 close when the sandbox shuts down or restarts: the seed's "Server restarting" (clients
    /// reconnect with backoff).
    public static let restartCloseReason = "server restarting"

    /// Stops the timers, refuses new sessions, and closes every socket with 1001 "server restarting", returning
    /// once each close handshake finished (bounded by the connections' close timeout).
    public func shutdown() async {
        isShutDown = true
        timer?.task.cancel()
        timer = nil
        await closeEverySocket()
    }

    /// What a server restart does to the realtime side: every socket, open or still opening, closes with 1001
    /// "server restarting", and the armed faults are forgotten (a restarted process would not remember them).
    /// Unlike `shutdown()`, the timers keep running and later sessions are served: the disconnected users go offline
    /// after the presence grace period, as after any close. Returns once each close handshake finished.
    package func closeEverySocketForRestart() async {
        faults = FaultPlan()
        await closeEverySocket()
    }

    /// Closes every socket with 1001 "server restarting", returning once each close handshake finished (bounded by
    /// the connections' close timeout).
    private func closeEverySocket() async {
        let sockets = socketsByDevice.values.flatMap(\.values) + openingSockets.values.flatMap(\.values)
        for socket in sockets { socket.close(code: .goingAway, reason: Self.restartCloseReason) }
        // The close frames go straight to the connections: the HTTP server's own shutdown, which follows, must
        // find them closing already rather than close them first with its generic reason.
        await withTaskGroup(of: Void.self) { group in
            for socket in sockets {
                group.addTask { await socket.connection.close(code: .goingAway, reason: Self.restartCloseReason) }
            }
        }
    }
}
