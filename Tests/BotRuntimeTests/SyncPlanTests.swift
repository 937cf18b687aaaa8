@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// How the sync after `session.ready` is cut into requests that stay under both directions' frame limits.
@Suite struct SyncPlanTests {
    private static let inboundLimit = 1 << 24
    private static let serviceFrameLimit = 64 * 1024

    private func positions(_ count: Int) -> [Conversation.ID: Int] {
        // Real conversation ids are 26-character ULIDs.
        Dictionary(uniqueKeysWithValues: (0..<count).map { (Conversation.ID(String(format: "01JE%022d", $0)), 1_000_000 + $0) })
    }

    @Test func manyConversationsAreSplitIntoRequestsWellUnder64KiB() throws {
        let plan = SyncPlan(limitPerConversation: nil, inboundMessageLimit: Self.inboundLimit)
        let all = positions(5_000)
        let requests = plan.requests(for: all)
        #expect(requests.count > 1)
        for request in requests {
            let frame = try JSONEncoder().encode(ClientFrame(.syncRequest(request), id: "c-123456"))
            #expect(frame.count < Self.serviceFrameLimit / 2)
        }
        var merged: [Conversation.ID: Int] = [:]
        for request in requests { merged.merge(request.conversations) { first, _ in first } }
        #expect(merged == all)
        #expect(requests.map(\.conversations.count).reduce(0, +) == all.count)
    }

    @Test func theWorstCaseResponseOfARequestFitsInHalfTheInboundLimit() {
        for limit in [nil, 1, 20, 100, 500] {
            let plan = SyncPlan(limitPerConversation: limit, inboundMessageLimit: Self.inboundLimit)
            let worst = plan.conversationsPerRequest * plan.limitPerConversation * SyncPlan.worstCaseMessageBytes
            #expect(worst <= Self.inboundLimit / 2 || plan.conversationsPerRequest == 1, "limit \(String(describing: limit))")
        }
    }

    @Test func theDefaultLimitPerConversationIsSentExplicitly() {
        let plan = SyncPlan(limitPerConversation: nil, inboundMessageLimit: Self.inboundLimit)
        #expect(plan.limitPerConversation == SyncPlan.defaultLimitPerConversation)
        #expect(plan.requests(for: positions(3)).map(\.limitPerConversation) == [SyncPlan.defaultLimitPerConversation])
    }

    @Test func aFewConversationsGoInOneRequest() {
        let plan = SyncPlan(limitPerConversation: 3, inboundMessageLimit: Self.inboundLimit)
        #expect(plan.requests(for: positions(10)).count == 1)
        #expect(plan.requests(for: [:]).isEmpty)
    }

    @Test func aRefusedResponseShrinksTheConversationsPerRequestFirst() {
        var plan = SyncPlan(limitPerConversation: 20, inboundMessageLimit: Self.inboundLimit)
        let configured = plan.conversationsPerRequest
        #expect(configured > 2)
        let shrank = plan.responseRefused()
        #expect(shrank)
        #expect(plan.conversationsPerRequest == ResponseSizeHalving.next(after: configured))
        #expect(plan.limitPerConversation == 20)
    }

    @Test func onceAtOneConversationARefusedResponseShrinksTheMessagesPerConversation() {
        var plan = SyncPlan(limitPerConversation: 20, inboundMessageLimit: Self.inboundLimit)
        while plan.conversationsPerRequest > 1 { plan.responseRefused() }
        let shrank = plan.responseRefused()
        #expect(shrank)
        #expect(plan.limitPerConversation == ResponseSizeHalving.next(after: 20))
        #expect(plan.conversationsPerRequest == 1)
    }

    @Test func atOneMessageOfOneConversationThePlanShrinksNoFurther() {
        var plan = SyncPlan(limitPerConversation: 1, inboundMessageLimit: 1)
        #expect(plan.isAtFloor)
        let shrank = plan.responseRefused()
        #expect(!shrank)
        #expect(plan.conversationsPerRequest == 1 && plan.limitPerConversation == 1)
        #expect(plan.requests(for: positions(3)).map(\.conversations.count) == [1, 1, 1])
    }

    @Test func aSuccessfulSyncRestoresTheConfiguredSizes() {
        let configured = SyncPlan(limitPerConversation: 20, inboundMessageLimit: Self.inboundLimit)
        var plan = configured
        for _ in 0..<30 { plan.responseRefused() }
        #expect(plan.isAtFloor)
        plan.synchronized()
        #expect(plan == configured)
    }

    @Test func onlyAResponseThisClientRefusedAsTooLargeShrinksThePlan() {
        let configured = SyncPlan(limitPerConversation: nil, inboundMessageLimit: Self.inboundLimit)
        var plan = configured
        for reason: RealtimeCloseReason in [.networkLost, .serverRestarting, .other(code: 1009, reason: "frame too large")] {
            let shrank = plan.syncInterrupted(by: reason)
            #expect(!shrank, "\(reason)")
        }
        #expect(plan == configured)
        let shrank = plan.syncInterrupted(by: .incomingMessageTooLarge(limit: Self.inboundLimit))
        #expect(shrank)
        #expect(plan.conversationsPerRequest == ResponseSizeHalving.next(after: configured.conversationsPerRequest))
    }

    @Test func moreAfterTheLastMessageOfAResponseIsPagedFromThatMessage() {
        let sync = ConversationSync(messages: [Fixture.message(Fixture.direct, seq: 8)], hasMore: true, members: [])
        #expect(SyncPlan.pagingStart(after: sync, requestedAfter: 5) == 8)
    }

    @Test func moreWithoutAnyMessageIsPagedFromWhereTheRequestAsked() {
        let sync = ConversationSync(messages: [], hasMore: true, members: [])
        #expect(SyncPlan.pagingStart(after: sync, requestedAfter: 5) == 5)
    }

    @Test func aCompleteResponseStartsNoPaging() {
        let sync = ConversationSync(messages: [Fixture.message(Fixture.direct, seq: 8)], hasMore: false, members: [])
        #expect(SyncPlan.pagingStart(after: sync, requestedAfter: 5) == nil)
    }
}
