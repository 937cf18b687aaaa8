import ChatterBots
import ChatterSandbox
import Foundation

/// Creates a `WorldSpec` in a sandbox through its service, in process (no HTTP): the setup is not what is measured.
struct WorldBuilder {
    let service: ChatterService

    /// Creates the accounts, friendships, conversations and waiting messages of `spec`.
    func build(_ spec: WorldSpec) async throws -> BenchWorld {
        let device = DeviceDescription(name: "chatter-bench", platform: "bench")
        let bots = try await createUsers(spec.botUsernames, password: spec.password)
        var people: [BenchWorld.Person] = []
        for username in spec.personUsernames {
            let user = try await service.createUser(username: username, password: spec.password, displayName: username)
            let session = try await service.login(LoginBody(username: username, password: spec.password, device: device))
            people.append(BenchWorld.Person(
                username: username, userId: user.id, deviceId: session.deviceId, accessToken: session.accessToken,
                refreshToken: session.refreshToken))
        }
        var links: [BenchWorld.Link] = []
        for link in spec.links {
            let person = people[link.person]
            let bot = bots[link.bot]
            try await service.makeFriends(person.userId, bot.id)
            let caller = SandboxCaller(userId: person.userId, deviceId: person.deviceId)
            let conversation = try await service.createConversation(caller, .direct(userId: bot.id)).value.value
            for index in 0..<link.waitingMessages {
                let send = MessageSend(
                    conversationId: conversation.id, clientMessageId: .random(),
                    content: MessageContent(kind: .text, body: "waiting \(index)"))
                _ = try await service.sendMessage(caller, send)
            }
            links.append(BenchWorld.Link(conversationId: conversation.id, person: link.person, bot: link.bot))
        }
        var groups: [BenchWorld.Group] = []
        for (number, group) in spec.groups.enumerated() {
            let owner = people[group.owner]
            let others = group.members.filter { $0 != group.owner }.map { people[$0].userId }
            for other in others { try await service.makeFriends(owner.userId, other) }
            let caller = SandboxCaller(userId: owner.userId, deviceId: owner.deviceId)
            let conversation = try await service.createConversation(caller, .group(title: "bench group \(number)", memberIds: others))
                .value.value
            groups.append(BenchWorld.Group(conversationId: conversation.id, members: group.members))
        }
        return BenchWorld(
            password: spec.password, bots: bots.map { BenchWorld.Bot(username: $0.username, userId: $0.id) },
            people: people, links: links, groups: groups)
    }

    /// Creates accounts a few at a time, so that password hashing uses both cores.
    private func createUsers(_ usernames: [String], password: String) async throws -> [User] {
        var users = [User?](repeating: nil, count: usernames.count)
        let width = 4
        try await withThrowingTaskGroup(of: (Int, User).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                let username = usernames[index]
                group.addTask {
                    (index, try await service.createUser(username: username, password: password, displayName: username))
                }
            }
            while next < min(width, usernames.count) { add() }
            while let (index, user) = try await group.next() {
                users[index] = user
                if next < usernames.count { add() }
            }
        }
        return users.compactMap { $0 }
    }
}
