import ChatterBots
import ChatterSandbox
import Testing

@Suite("Conversations, members and roles")
struct ConversationTests {
    @Test func thereIsOneDirectConversationPerPair() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let (ana, ben) = (accounts[0], accounts[1])

        let first = try await harness.service.createConversation(ana.caller, .direct(userId: ben.id))
        let again = try await harness.service.createConversation(ana.caller, .direct(userId: ben.id))
        let fromBen = try await harness.service.createConversation(ben.caller, .direct(userId: ana.id))

        #expect(first.value.isNew)
        #expect(!again.value.isNew)
        #expect(!fromBen.value.isNew)
        #expect(again.value.value.id == first.value.value.id)
        #expect(fromBen.value.value.id == first.value.value.id)
        #expect(again.deliveries.isEmpty)
        let conversation = first.value.value
        #expect(conversation.kind == .direct)
        #expect(conversation.title == nil)
        #expect(conversation.members.map(\.userId) == [ana.id, ben.id])
        #expect(conversation.lastSeq == 0)
        #expect(conversation.lastMessage == nil)
    }

    @Test func aDirectConversationIsOnlyWithAFriend() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        await expectAPIError(.notFriends) { try await harness.service.createConversation(ana.caller, .direct(userId: ben.id)) }
        await expectAPIError(.validationFailed, field: "userId") {
            try await harness.service.createConversation(ana.caller, .direct(userId: ana.id))
        }
        await expectAPIError(.notFound) { try await harness.service.createConversation(ana.caller, .direct(userId: "01NOPE")) }
    }

    @Test func theOtherMembersGetConversationCreated() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])

        let outcome = try await harness.service.createConversation(ana.caller, .group(title: "Trip", memberIds: [ben.id, cai.id]))

        let conversation = outcome.value.value
        #expect(outcome.deliveries.map(\.recipients) == [[ben.id], [cai.id]])
        #expect(outcome.deliveries.allSatisfy { $0.event == .conversationCreated(conversation) })
    }

    @Test func groupMembersMustBeTheCreatorsFriends() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let eve = try await harness.signUp("eve")
        let error = await expectAPIError(.notFriends, field: "memberIds") {
            try await harness.service.createConversation(accounts[0].caller, .group(title: "Trip", memberIds: [accounts[1].id, eve.id]))
        }
        #expect(error?.details?["userId"]?.stringValue == eve.id.rawValue)
        #expect(try await harness.service.conversations(accounts[0].caller, updatedSince: nil).conversations.isEmpty)
    }

    @Test func theCreatorOwnsAGroupAndOthersAreMembers() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let group = try await harness.group(accounts[0], "  Trip  ", [accounts[1], accounts[2], accounts[1]])

        #expect(group.kind == .group)
        #expect(group.title == "Trip")
        #expect(group.members.map(\.role) == [.owner, .member, .member])
        #expect(group.members.map(\.userId) == accounts.map(\.id))
    }

    @Test func onlyTheOwnerOrAnAdminChangesAGroup() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])
        let group = try await harness.group(ana, "Trip", [ben, cai])

        await expectAPIError(.forbidden) {
            try await harness.service.updateConversation(ben.caller, group.id, ConversationUpdateBody(title: "Mine"))
        }
        _ = try await harness.service.setRole(ana.caller, group.id, of: ben.id, to: .admin)
        let outcome = try await harness.service.updateConversation(ben.caller, group.id, ConversationUpdateBody(title: "Lisbon"))

        #expect(outcome.value.title == "Lisbon")
        #expect(outcome.deliveries.map(\.recipients) == [[ana.id], [ben.id], [cai.id]])
        #expect(outcome.deliveries.allSatisfy {
            if case .conversationUpdated(let conversation) = $0.event { conversation.title == "Lisbon" } else { false }
        })
        await expectAPIError(.forbidden) { try await harness.service.setRole(ben.caller, group.id, of: cai.id, to: .admin) }
    }

    @Test func aDirectConversationHasNoTitleAndNoMembersToManage() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let direct = try await harness.direct(accounts[0], accounts[1])

        await expectAPIError(.forbidden) {
            try await harness.service.updateConversation(accounts[0].caller, direct.id, ConversationUpdateBody(title: "X"))
        }
        await expectAPIError(.forbidden) {
            try await harness.service.addMembers(accounts[0].caller, direct.id, MembersBody(userIds: [accounts[2].id]))
        }
        await expectAPIError(.forbidden) { try await harness.service.removeMember(accounts[0].caller, direct.id, accounts[0].id) }
    }

    @Test func addedMembersGetConversationCreatedAndTheOthersConversationUpdated() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])
        let group = try await harness.group(ana, "Trip", [ben])

        let outcome = try await harness.service.addMembers(ana.caller, group.id, MembersBody(userIds: [cai.id, ben.id]))

        #expect(outcome.value.members.map(\.userId) == [ana.id, ben.id, cai.id])
        let kinds = outcome.deliveries.map { ($0.recipients, $0.event.type) }
        #expect(kinds.map(\.0) == [[ana.id], [ben.id], [cai.id]])
        #expect(kinds.map(\.1) == ["conversation.updated", "conversation.updated", "conversation.created"])
    }

    @Test func addingSomeoneWhoIsNotTheCallersFriendOrAsAMemberIsRefused() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let eve = try await harness.signUp("eve")
        let group = try await harness.group(accounts[0], "Trip", [accounts[1]])

        await expectAPIError(.notFriends, field: "userIds") {
            try await harness.service.addMembers(accounts[0].caller, group.id, MembersBody(userIds: [eve.id]))
        }
        await expectAPIError(.forbidden) {
            try await harness.service.addMembers(accounts[1].caller, group.id, MembersBody(userIds: [accounts[2].id]))
        }
        await expectAPIError(.validationFailed, field: "userIds") {
            try await harness.service.addMembers(accounts[0].caller, group.id, MembersBody(userIds: []))
        }
    }

    @Test func theRemovedMemberGetsConversationRemovedAndTheRestConversationUpdated() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])
        let group = try await harness.group(ana, "Trip", [ben, cai])

        let outcome = try await harness.service.removeMember(ana.caller, group.id, cai.id)

        #expect(outcome.deliveries.first == SandboxDelivery(event: .conversationRemoved(conversationId: group.id), recipients: [cai.id]))
        #expect(outcome.deliveries.dropFirst().map(\.recipients) == [[ana.id], [ben.id]])
        #expect(outcome.deliveries.dropFirst().allSatisfy { $0.event.type == "conversation.updated" })
        await expectAPIError(.notFound) { try await harness.service.conversation(cai.caller, group.id) }
    }

    @Test func aMemberMayLeaveButNotRemoveOthers() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])
        let group = try await harness.group(ana, "Trip", [ben, cai])

        await expectAPIError(.forbidden) { try await harness.service.removeMember(ben.caller, group.id, cai.id) }
        let left = try await harness.service.removeMember(ben.caller, group.id, ben.id)

        #expect(left.deliveries.first?.event == .conversationRemoved(conversationId: group.id))
        #expect(try await harness.service.conversation(ana.caller, group.id).members.map(\.userId) == [ana.id, cai.id])
        await expectAPIError(.notFound) { try await harness.service.removeMember(ana.caller, group.id, ben.id) }
    }

    @Test func anAdminCannotRemoveTheOwner() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let group = try await harness.group(accounts[0], "Trip", [accounts[1]])
        _ = try await harness.service.setRole(accounts[0].caller, group.id, of: accounts[1].id, to: .admin)
        await expectAPIError(.forbidden) { try await harness.service.removeMember(accounts[1].caller, group.id, accounts[0].id) }
    }

    @Test func anOwnerWhoLeavesHandsOwnershipToTheFirstAdminElseTheFirstMember() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        let (ana, ben, cai) = (accounts[0], accounts[1], accounts[2])
        let group = try await harness.group(ana, "Trip", [ben, cai])
        _ = try await harness.service.setRole(ana.caller, group.id, of: cai.id, to: .admin)

        _ = try await harness.service.removeMember(ana.caller, group.id, ana.id)
        let afterOwnerLeft = try await harness.service.conversation(ben.caller, group.id)
        #expect(afterOwnerLeft.members.map(\.role) == [.member, .owner])

        _ = try await harness.service.removeMember(cai.caller, group.id, cai.id)
        #expect(try await harness.service.conversation(ben.caller, group.id).members.map(\.role) == [.owner])
    }

    @Test func muteIsTheCallersOwnSetting() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])

        try await harness.service.setMuted(accounts[1].caller, direct.id, muted: true)

        #expect(try await harness.service.conversation(accounts[1].caller, direct.id).muted)
        #expect(try await !harness.service.conversation(accounts[0].caller, direct.id).muted)
        try await harness.service.setMuted(accounts[1].caller, direct.id, muted: false)
        #expect(try await !harness.service.conversation(accounts[1].caller, direct.id).muted)
    }

    @Test func conversationsPageByUpdatedAtOldestFirstWithoutSkippingAny() async throws {
        let harness = try await ServiceHarness.make(.testing { $0.conversationPageSize = 2 })
        let accounts = try await harness.friends("ana", "ben", "cai", "dan", "eli")
        let ana = accounts[0]
        var created: [Conversation.ID] = []
        for other in accounts.dropFirst() { created.append(try await harness.direct(ana, other).id) }
        // Time stands still on the manual clock: every change happens in the same millisecond.
        try await harness.send(ana, "bump", in: created[0])

        var seen: [Conversation.ID] = []
        var since: Timestamp?
        while true {
            let page = try await harness.service.conversations(ana.caller, updatedSince: since).conversations
            #expect(page.count <= 2)
            guard let last = page.last else { break }
            #expect(page.map(\.updatedAt) == page.map(\.updatedAt).sorted())
            seen += page.map(\.id)
            since = last.updatedAt
        }
        #expect(seen == Array(created.dropFirst()) + [created[0]])
    }

    @Test func aConversationShowsItsLastMessageAndLastSeq() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben")
        let direct = try await harness.direct(accounts[0], accounts[1])
        try await harness.send(accounts[0], "one", in: direct.id)
        let second = try await harness.send(accounts[1], "two", in: direct.id)

        let conversation = try await harness.service.conversation(accounts[0].caller, direct.id)
        #expect(conversation.lastSeq == 2)
        #expect(conversation.lastMessage == second)
        #expect(conversation.updatedAt >= direct.updatedAt)
    }
}
