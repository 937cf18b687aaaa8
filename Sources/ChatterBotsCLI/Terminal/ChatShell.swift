import BotRuntime
import ChatterBots
import Foundation

/// Carries out what `ChatScreen` asks for, with real I/O: it owns the screen and the current connection, shows
/// lines, and turns each `ChatAction` into a request whose outcome comes back to the client's loop as an event.
/// Runs inside that one loop, so the screen is never touched concurrently.
struct ChatShell {
    /// What the client's loop reacts to.
    enum Event: Sendable {
        /// An input for the screen.
        case input(ChatInput)
        /// A realtime session is ready; `generation` tells its catch-up from an earlier connection's.
        case opened(ChatterRealtimeConnection, generation: UInt64)
        /// What the catch-up of the connection of `generation` brought back (`.caughtUp`).
        case caughtUp(generation: UInt64, ChatInput)
        /// The catch-up of the connection of `generation` is over, or failed with `failure`. (One cut short by the
        /// end of its connection reports nothing: the lifecycle reacts to the end.)
        case catchUpEnded(generation: UInt64, failure: (any Error)?)
        /// The realtime session of `generation` ended (the connection task reconnects).
        case closed(generation: UInt64)
        /// The client cannot go on.
        case stopped(ChatClientError)
    }

    /// A message to send on a connection, in the order the person typed it.
    struct Outbound: Sendable {
        var connection: ChatterRealtimeConnection
        var message: MessageSend
    }

    var screen: ChatScreen
    var connection: ChatterRealtimeConnection?
    /// The lifecycle's generation of `connection`.
    var generation: UInt64?
    /// Receipts the screen produced while no socket was open, the latest per conversation and kind; sent by
    /// `flushReceipts()` once a session is ready, since the screen already counts them as sent.
    var pendingReceipts: [ReceiptKey: ReceiptPosition] = [:]

    struct ReceiptKey: Hashable {
        var conversationId: Conversation.ID
        var isRead: Bool
    }
    let rest: ChatterRESTClient
    /// The largest message the connection accepts, which bounds a `sync.response` (`SyncPlan`).
    let inboundMessageLimit: Int
    let events: AsyncStream<Event>.Continuation
    let outbound: AsyncStream<Outbound>.Continuation
    /// What the person cancelled, which the client's sender skips.
    let cancelledSends: CancelledSends
    let display: @Sendable ([ScreenLine]) -> Void
    /// The connection's clock, which times the wait for acknowledgements at the end of input.
    let clock: any ChatterClock

    /// Sends a receipt now, or keeps it for the next session when no socket is open or the send fails: the screen
    /// counts it as sent, and watermarks only move forward, so nothing else would send it again.
    private mutating func sendReceipt(_ position: ReceiptPosition, isRead: Bool) {
        guard let connection else {
            keepReceipt(position, isRead: isRead)
            return
        }
        let request: ClientRequest = isRead ? .receiptRead(position) : .receiptDelivered(position)
        do {
            try connection.sendWithoutWaiting(request)
        } catch {
            keepReceipt(position, isRead: isRead)  // the socket is closing
        }
    }

    /// Keeps a receipt for `flushReceipts()`, the latest per conversation and kind.
    mutating func keepReceipt(_ position: ReceiptPosition, isRead: Bool) {
        let key = ReceiptKey(conversationId: position.conversationId, isRead: isRead)
        if (pendingReceipts[key]?.seq ?? 0) < position.seq { pendingReceipts[key] = position }
    }

    /// Sends the receipts kept while disconnected; call when a session opens.
    mutating func flushReceipts() {
        let pending = pendingReceipts
        pendingReceipts = [:]
        for (key, position) in pending { sendReceipt(position, isRead: key.isRead) }
    }

    /// Gives the screen one input, shows its lines, and carries out its actions.
    mutating func apply(_ input: ChatInput) {
        let update = screen.handle(input)
        if !update.lines.isEmpty { display(update.lines) }
        for action in update.actions { perform(action) }
    }

    private mutating func perform(_ action: ChatAction) {
        let rest = rest
        let events = events
        switch action {
        case .send(let message):
            // Without a connection the message stays pending in the screen and goes out on `.connected`.
            guard let connection else { return }
            outbound.yield(Outbound(connection: connection, message: message))
        case .cancelSend(let id):
            cancelledSends.insert(id)
        case .markDelivered(let position):
            sendReceipt(position, isRead: false)
        case .markRead(let position):
            sendReceipt(position, isRead: true)
        case .loadHistory(let id, let beforeSeq, let limit):
            Task {
                do {
                    let page = try await rest.messages(in: id, beforeSeq: max(1, beforeSeq), limit: limit)
                    events.yield(.input(.historyLoaded(id, page.messages.reversed())))
                } catch {
                    events.yield(.input(.historyFailed(id, reason: "\(error)")))
                }
            }
        case .openDirectConversation(let userId):
            Task {
                do {
                    events.yield(.input(.conversationOpened(try await rest.directConversation(with: userId))))
                } catch {
                    events.yield(.input(.directConversationFailed(with: userId, reason: "\(error)")))
                }
            }
        case .acceptFriendRequest(let requestId):
            Task {
                do {
                    events.yield(.input(.friendRequestAccepted(try await rest.acceptFriendRequest(requestId))))
                } catch {
                    events.yield(.input(.requestFailed("Could not accept the friend request: \(error)")))
                }
            }
        case .react(let emoji, let messageId, let conversationId):
            Task {
                do {
                    events.yield(.input(.reacted(try await rest.addReaction(emoji, to: messageId, in: conversationId))))
                } catch {
                    events.yield(.input(.requestFailed("Could not react: \(error)")))
                }
            }
        case .declineFriendRequest(let requestId):
            Task {
                do {
                    try await rest.declineFriendRequest(requestId)
                    events.yield(.input(.friendRequestDeclined(requestId)))
                } catch {
                    events.yield(.input(.requestFailed("Could not decline the friend request: \(error)")))
                }
            }
        case .lookUpUser(let userId):
            // A name is a nicety: without it the screen shows a short id.
            Task {
                if let user = try? await rest.user(userId) { events.yield(.input(.userLoaded(user))) }
            }
        case .catchUp(let request, let refreshDirectory):
            guard let connection, let generation else { return }  // the next connection catches up
            let plan = SyncPlan(limitPerConversation: request.limitPerConversation, inboundMessageLimit: inboundMessageLimit)
            Task {
                await Self.catchUp(
                    request, plan: plan, refreshDirectory: refreshDirectory, connection: connection, generation: generation,
                    rest: rest, events: events)
            }
        case .setTyping(let isTyping, let id):
            // Best effort, as the service treats typing; in order with the other frames of this loop.
            try? connection?.sendWithoutWaiting(isTyping ? .typingStart(conversationId: id) : .typingStop(conversationId: id))
        case .refreshDirectory:
            Task {
                do {
                    events.yield(.input(.directoryLoaded(try await Self.loadDirectory(rest))))
                } catch {
                    events.yield(.input(.directoryRefreshFailed("Could not refresh your conversations: \(error)")))
                }
            }
        case .waitForAcknowledgements(let duration):
            let clock = clock
            Task {
                try? await clock.sleep(for: duration)
                events.yield(.input(.acknowledgementWaitEnded))
            }
        case .quit:
            break  // the loop ends once the screen says so
        }
    }

    /// The directory when asked, then what the conversations gained since the given `seq`s: `sync.request`s cut by
    /// `plan` (one frame naming every conversation of a large account would pass the service's 64 KiB and close the
    /// socket with 1009 at every connect), and REST pages while `hasMore`. Everything it reports names the
    /// connection's `generation`, so that a late one of an earlier connection is told apart.
    private static func catchUp(
        _ request: SyncRequest, plan: SyncPlan, refreshDirectory: Bool, connection: ChatterRealtimeConnection,
        generation: UInt64, rest: ChatterRESTClient, events: AsyncStream<Event>.Continuation
    ) async {
        var failure: (any Error)?
        if refreshDirectory {
            do {
                events.yield(.caughtUp(generation: generation, .directoryLoaded(try await loadDirectory(rest))))
            } catch {
                failure = error
            }
        }
        do {
            try await syncConversations(request, plan: plan, connection: connection, generation: generation, rest: rest, events: events)
        } catch let error as RealtimeError {
            switch error {
            case .closed, .cancelled:
                return  // cut short by the end of the connection, which the lifecycle handles; the next one catches up
            default:
                failure = failure ?? error
            }
        } catch {
            failure = failure ?? error
        }
        events.yield(.catchUpEnded(generation: generation, failure: failure))
    }

    /// The `sync.request`s of a catch-up and the pages after them, each conversation reported as `.caughtUp`.
    private static func syncConversations(
        _ request: SyncRequest, plan: SyncPlan, connection: ChatterRealtimeConnection, generation: UInt64,
        rest: ChatterRESTClient, events: AsyncStream<Event>.Continuation
    ) async throws {
        for part in plan.requests(for: request.conversations) {
            let response = try await connection.sync(part)
            for (id, sync) in response.conversations {
                var messages = sync.messages
                var hasMore = sync.hasMore
                while hasMore {
                    let after = messages.last?.seq ?? part.conversations[id] ?? 0
                    let page = try await rest.messages(in: id, afterSeq: after, limit: 100)
                    messages += page.messages
                    hasMore = page.hasMore && !page.messages.isEmpty
                }
                events.yield(.caughtUp(generation: generation, .caughtUp(id, messages: messages, members: sync.members)))
            }
        }
    }

    /// Friends, friend requests and every conversation (paged by `updatedSince`).
    static func loadDirectory(_ rest: ChatterRESTClient) async throws -> ChatDirectory {
        async let friends = rest.friends()
        async let requests = rest.friendRequests()
        var conversations: [Conversation] = []
        var seen: Set<Conversation.ID> = []
        var paging = ConversationListPaging(pageSize: ChatterEndpoint.conversationsPerPage)
        while true {
            let page = try await rest.conversations(updatedSince: paging.updatedSince)
            // Pages overlap by a millisecond (`ConversationListPaging`): a conversation listed twice is taken once.
            for conversation in page where seen.insert(conversation.id).inserted { conversations.append(conversation) }
            if paging.pageReceived(page) == .done { break }
        }
        let pending = try await requests
        return ChatDirectory(
            friends: try await friends, incomingRequests: pending.incoming, outgoingRequests: pending.outgoing,
            conversations: conversations)
    }
}
