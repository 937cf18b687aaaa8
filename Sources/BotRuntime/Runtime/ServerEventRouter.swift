import ChatterBots

/// Sends each server event of a connection where it belongs, without waiting for any handler: messages and
/// conversations to the admission queue, replies to the outbox, presence, friend, profile, receipt and typing events
/// to the events lane (receipts through the read-state directory, which passes on only those that moved).
/// Unknown types are ignored; unreadable frames are logged; nothing here ends the session.
struct ServerEventRouter: RealtimeEventSink {
    let admission: AdmissionQueue
    let outbox: OutboxSender
    let dispatcher: HandlerDispatcher
    let presence: PresenceDirectory
    let readState: ReadStateDirectory
    let identity: SessionIdentity
    let ignoredRequests: IgnoredFriendRequests
    let log: SessionLog
    /// Told when the connection's `presence.snapshot` arrived, after its handler was queued (`onReady` waits for it).
    let snapshotReceived: @Sendable () -> Void

    /// Routes `link`'s events until the connection ends. They come on the connection's reader task, batch by batch
    /// (routing never waits), with no hand-over to a task of the session's own.
    func read(_ link: RealtimeLink) async {
        await link.connection.deliverEvents(to: self)
    }

    /// Routes one batch of events, in order. The `message.new`s among them go to the admission as one batch (one
    /// transaction in a flood), in order with the other events.
    func receive(_ events: [RealtimeEvent]) {
        var messages: [Message] = []
        for event in events {
            switch event {
            case .frame(let frame):
                if case .messageNew(let message) = frame.event {
                    traceArrival(of: message)
                    messages.append(message)
                } else {
                    if !messages.isEmpty { admission.submit(.messages(messages)) }
                    messages = []
                    route(frame)
                }
            case .diagnostic(let diagnostic):
                log.warning("\(diagnostic)")
            }
        }
        if !messages.isEmpty { admission.submit(.messages(messages)) }
    }

    private func traceArrival(of message: Message) {
        log.trace("message.new", trace: message.id.rawValue, [
            "conversation": message.conversationId.rawValue, "seq": String(message.seq),
        ])
    }

    func route(_ frame: ServerFrame) {
        switch frame.event {
        case .messageNew(let message):
            traceArrival(of: message)
            admission.submit(.messages([message]))
        case .messageUpdated(let message):
            admission.submit(.updated(message, trace: "\(message.id.rawValue)-updated"))
        case .messageAck(let ack):
            outbox.received(ack)
        case .error(let body):
            if let replyTo = frame.replyTo, outbox.received(body, replyTo: replyTo) { return }
            log.warning("the server reported an error: \(body.code) (\(body.message))", ["replyTo": frame.replyTo ?? ""])
        case .presenceSnapshot(let presences):
            presence.replace(with: presences)
            dispatcher.enqueue(.event(.presenceSnapshot(presences), trace: TraceID.make()), in: .events)
            snapshotReceived()
        case .presence(let change):
            presence.update(change)
            dispatcher.enqueue(.event(.presenceChanged(change), trace: TraceID.make()), in: .events)
        case .conversationCreated(let conversation):
            admission.submit(.conversations([conversation], .created, trace: "conversation-\(conversation.id.rawValue)"))
        case .conversationUpdated(let conversation):
            admission.submit(.conversations([conversation], .updated, trace: "conversation-\(conversation.id.rawValue)"))
        case .conversationRemoved(let id):
            admission.submit(.removed(id, trace: "conversation-\(id.rawValue)"))
        case .friendRequestReceived(let request):
            dispatcher.enqueue(.event(.friendRequest(request), trace: "friend-request-\(request.id.rawValue)"), in: .events)
        case .friendRequestAccepted(let accepted):
            let ignored = ignoredRequests
            Task(executorPreference: SessionExecutor.preferred) { await ignored.forget(accepted.requestId) }
            dispatcher.enqueue(
                .event(.friendAdded(accepted.friend, isRecorded: false), trace: "friend-request-\(accepted.requestId.rawValue)"), in: .events)
        case .friendRequestCancelled(let id):
            let ignored = ignoredRequests
            Task(executorPreference: SessionExecutor.preferred) { await ignored.forget(id) }
            dispatcher.enqueue(.event(.friendRequestCancelled(id), trace: "friend-request-\(id.rawValue)"), in: .events)
        case .userUpdated(let user):
            dispatcher.enqueue(.event(.userUpdated(user), trace: TraceID.make()), in: .events)
        case .friendRemoved(let userId):
            dispatcher.enqueue(.event(.friendRemoved(userId, isRecorded: false), trace: TraceID.make()), in: .events)
        case .receiptUpdated(let receipt):
            // Best effort, in memory only: a receipt that moves nothing (a copy, a late one) reaches no handler.
            guard readState.update(receipt), receipt.userId != identity.device?.userId else { return }
            dispatcher.enqueueReadStateChanges([receipt], trace: TraceID.make())
        case .typing(let typing):
            guard typing.userId != identity.device?.userId else { return }
            dispatcher.enqueue(.event(.typing(typing), trace: TraceID.make()), in: .events)
        case .sessionReady, .pong, .syncResponse, .unknown:
            if log.accepts(.trace) { log.trace("ignored \(frame.event.type)") }
        }
    }
}
