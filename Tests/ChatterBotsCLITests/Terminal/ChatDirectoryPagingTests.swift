@testable import ChatterBotsCLI
import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import TestSupport

/// The terminal client lists every conversation, paging `GET /conversations` by `updatedSince` (100 a page), also
/// when the last of a page shares its millisecond with the first of the next.
@Suite struct ChatDirectoryPagingTests {
    @Test func aConversationChangedInTheMillisecondOfAFullPagesLastIsListed() async throws {
        let clock = ManualClock()
        var service = SandboxServiceConfiguration(passwordHashIterations: 1_000)
        service.conversationUpdateTimesMayTie = true
        let seed = SandboxSeed(
            users: [SandboxUserSeed(username: "alice", password: "sandbox-password"), SandboxUserSeed(username: "bob", password: "sandbox-password")],
            friendships: [SandboxFriendship("alice", "bob")])
        let sandbox = try await Sandbox.start(SandboxConfiguration(clock: clock, service: service, seed: seed))
        do {
            let alice = try #require(sandbox.seeded["alice"])
            let bob = try #require(sandbox.seeded["bob"])
            let rest = { (account: SeededAccount) in
                ChatterRESTClient(
                    configuration: sandbox.serverConfiguration, tokenStore: ChatterTokenStore(tokens: account.session.tokens),
                    requestTimeouts: .hangGuard)
            }
            var created: Set<Conversation.ID> = []
            for index in 1...99 {
                created.insert(try await rest(bob).createGroup(title: "group \(index)", memberIds: [alice.user.id]).id)
            }
            await clock.advance(by: .milliseconds(1))
            // Both in one millisecond: the first page ends with one of them.
            for index in 100...101 {
                created.insert(try await rest(bob).createGroup(title: "group \(index)", memberIds: [alice.user.id]).id)
            }

            let directory = try await ChatShell.loadDirectory(rest(alice))
            #expect(Set(directory.conversations.map(\.id)) == created)
            #expect(directory.conversations.count == created.count)
        } catch {
            await sandbox.shutdown()
            throw error
        }
        await sandbox.shutdown()
    }
}
