import ChatterBots
import Foundation

/// What a session does after every `session.ready` (design.md points 3–4): refresh over REST what the socket
/// does not replay (conversations changed since the last refresh, pending friend requests, friends), then
/// `sync.request`s (cut by `SyncPlan`) with the highest contiguous seq of every known conversation, following
/// `hasMore` with REST pages. Everything goes through the admission queue, so it is deduplicated against what
/// arrives live meanwhile.
///
/// Messages do not wait for the friendships: when the friends or friend-request refresh fails, the sync goes on
/// without it and the session tries it again later (`refreshFriendshipsUntilDone`), so an outage of those
/// endpoints never keeps the bot from catching up, answering and sending.
struct SessionSynchronizer: Sendable {
    let store: BotStore
    let writer: StoreWriter
    let rest: ChatterRESTClient
    let dispatcher: HandlerDispatcher
    let outbox: OutboxSender
    let friends: FriendDirectory
    let ignoredRequests: IgnoredFriendRequests
    /// Holds the instant of the friendships' next attempt while they are retried.
    let friendshipsRetry: RetryDeadline
    let maintenance: StoreMaintenance
    let admission: AdmissionQueue
    /// Takes each synced conversation's member watermarks.
    let readState: ReadStateDirectory
    /// Who the bot is: its own watermarks moving are no news to it.
    let identity: SessionIdentity
    let environment: BotRuntimeEnvironment
    let log: SessionLog
    /// Takes a refresh that cannot succeed as the bot's last error.
    let metrics: SessionMetrics

    /// Runs the refresh and the sync on `link`, its requests cut by `plan`; throws when the conversations' refresh
    /// or the sync failed (the session then reconnects). Returns the error the friendships' refresh failed with, nil
    /// when it succeeded.
    func synchronize(on link: RealtimeLink, isFirst: Bool, plan: SyncPlan) async throws -> (any Error)? {
        let trace = "sync-\(link.generation)"
        try await refreshConversations(trace: trace)

        var friendshipsFailure: (any Error)?
        do {
            try await refreshFriendships(trace: trace)
        } catch {
            try Task.checkCancellation()
            log.warning("could not refresh friends and friend requests: \(error); the sync goes on, and they are tried again", trace: trace)
            friendshipsFailure = error
            // Owed from now on: `refreshFriendshipsUntilDone` picks its instant, or the session clears it.
            friendshipsRetry.set(.distantPast)
        }

        if isFirst {
            // Parked messages that are next and not handed out (none after a restart: they live in memory, and
            // this sync brings them back).
            for conversation in try await store.conversationsWithDeliverableMessages() {
                let messages = try await store.deliverableMessages(in: conversation)
                dispatcher.enqueueHandedOut(messages)
            }
        }

        let positions = try await store.syncPositions()
        guard !positions.isEmpty else { return friendshipsFailure }
        var fetched = 0
        var absent: [Conversation.ID] = []
        for request in plan.requests(for: positions) {
            let response = try await link.connection.sync(request, timeout: environment.syncTimeout)
            for id in request.conversations.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                guard let conversation = response.conversations[id] else {
                    // The seed does not say that leaving a conversation out means removal: nothing new.
                    absent.append(id)
                    continue
                }
                fetched += conversation.messages.count
                dispatcher.enqueueReadStateChanges(
                    readState.record(conversation.members, in: id, bot: identity.device?.userId), trace: trace)
                admission.submit(.messages(conversation.messages))
                if let last = SyncPlan.pagingStart(after: conversation, requestedAfter: request.conversations[id]) {
                    admission.backfill(id, after: last)
                }
            }
        }
        if !absent.isEmpty { await verifyMembership(of: absent, trace: trace) }
        log.debug("synchronized \(positions.count) conversations, \(fetched) messages", trace: trace)
        let (admission, dispatcher, writer, outbox) = (admission, dispatcher, writer, outbox)
        maintenance.afterSynchronization {
            await admission.waitUntilProcessed()
            await dispatcher.waitUntilIdle()
            await writer.waitUntilLanesIdle()
            await outbox.waitUntilEmpty()  // the replies' acks are recorded too
        }
        return friendshipsFailure
    }

    /// Tries the refresh of friends and friend requests again after it failed with `failure`, waiting the reconnect
    /// backoff (1, 2, 4 … 30 s), or longer when a `RATE_LIMITED` answer asked for it, before each attempt, until one
    /// succeeds or the task is cancelled with its connection.
    func refreshFriendshipsUntilDone(after failure: any Error, trace: String) async {
        var policy = ReconnectPolicy()
        var random = JitterRandom(seed: environment.randomSeed, botName: log.bot)
        var asked = RateLimitDelay.asked(by: failure)
        defer { friendshipsRetry.set(nil) }
        while true {
            do {
                let delay = max(policy.nextDelay(using: &random), asked ?? .zero)
                let deadline = environment.clock.now.adding(delay)
                friendshipsRetry.set(deadline)
                try await environment.clock.sleep(until: deadline)
                try await refreshFriendships(trace: trace)
                log.info("friends and friend requests refreshed after \(policy.attempts) more attempts", trace: trace)
                return
            } catch {
                if Task.isCancelled { return }
                asked = RateLimitDelay.asked(by: error)
                log.warning("could not refresh friends and friend requests: \(error); trying again", trace: trace)
            }
        }
    }

    /// `GET /friends` and `GET /friend-requests`: friendships that began or ended while offline, and requests the bot
    /// has not decided.
    private func refreshFriendships(trace: String) async throws {
        try await refreshFriends(trace: trace)
        let requests = try await rest.friendRequests()
        // Requests no longer pending are forgotten; the bot was asked about the others that it left pending.
        await ignoredRequests.retain(pending: requests.incoming.map(\.id))
        for request in requests.incoming where !ignoredRequests.contains(request.id) {
            dispatcher.enqueue(.event(.friendRequest(request), trace: "friend-request-\(request.id.rawValue)"), in: .events)
        }
    }

    /// Conversations the sync left out are taken as having nothing new. A few are looked up over REST, so that
    /// one the bot was removed from while offline is noticed (`NOT_FOUND`); a service that leaves out many (every
    /// conversation without news) is not asked about each.
    private func verifyMembership(of absent: [Conversation.ID], trace: String) async {
        guard absent.count <= Self.maxMembershipLookups else {
            log.debug("the sync left out \(absent.count) conversations: taken as nothing new", trace: trace)
            return
        }
        for id in absent {
            do {
                _ = try await rest.conversation(id)
            } catch let error as ChatterAPIError where error.code == .notFound {
                log.info("conversation \(id) is gone (NOT_FOUND): the bot is no longer a member", trace: trace)
                admission.submit(.removed(id, trace: trace))
            } catch {
                log.debug("could not look up conversation \(id) the sync left out: \(error)", trace: trace)
            }
        }
    }

    /// The most conversations left out of a sync that are looked up one by one.
    static let maxMembershipLookups = 50

    /// `GET /friends`, compared with the friends the bot knew: friendships that began or ended meanwhile, and
    /// profiles changed meanwhile, reach their handlers. Fetched again when a live friend event changed the list
    /// while the request ran.
    private func refreshFriends(trace: String) async throws {
        for _ in 0..<5 {
            let version = friends.version
            let current = try await rest.friends()
            guard let changes = await friends.reconcile(with: current, fetchedAt: version) else { continue }
            for friend in changes.added {
                dispatcher.enqueue(.event(.friendAdded(friend, isRecorded: true), trace: trace), in: .events)
            }
            for userId in changes.removed {
                dispatcher.enqueue(.event(.friendRemoved(userId, isRecorded: true), trace: trace), in: .events)
            }
            for user in changes.updated {
                dispatcher.enqueue(.event(.userUpdatedWhileAway(user), trace: trace), in: .events)
            }
            return
        }
        log.notice("the friends list kept changing during the refresh; live events keep it current", trace: trace)
    }

    /// `GET /conversations?updatedSince=`, page after page (`ConversationListPaging`), from the last refresh on; a
    /// page shorter than the service's page size is the last, so a bot in fewer conversations than a page asks once.
    ///
    /// A page larger than even the contract lets it be (`ChatterEndpoint.largestResponse`) would be refused the
    /// same way at every attempt, and the endpoint takes no `limit` to ask for less: the sync goes on with the
    /// conversations the bot knows rather than never going live, and the next sync asks again. A conversation it
    /// missed is looked up when a message of it arrives.
    private func refreshConversations(trace: String) async throws {
        var paging = ConversationListPaging(
            pageSize: environment.conversationPageSize, resumingAfter: try await store.conversationsUpdatedSince())
        do {
            while true {
                let page = try await rest.conversations(updatedSince: paging.updatedSince)
                if !page.isEmpty { admission.submit(.conversations(page, .refreshed, trace: trace)) }
                let next = paging.pageReceived(page)
                if next == .done { break }
                if next == .morePastAFullMillisecond {
                    log.warning("a whole page of conversations changed in the same millisecond: any more of it are skipped until they change again", trace: trace)
                }
            }
        } catch let error as ChatterClientError {
            guard case .responseTooLarge = error else { throw error }
            log.error("could not refresh the conversations: \(error); the sync goes on with the conversations the bot knows", trace: trace)
            metrics.setLastError("conversation refresh: \(error)")
        }
        // The sync below asks for the conversations just recorded.
        await admission.waitUntilProcessed()
    }
}
