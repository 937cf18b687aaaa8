import ChatterBots

/// Reads the bots' conversations back from the server's store and counts, per message a person sent, the bot's
/// replies (`echo: <text>`): a message without one was lost, one with two or more (or stored twice) duplicated.
/// What the server kept is the truth a scenario checks exactly-once against, whatever the bots think they sent.
struct ReplyAudit: Sendable {
    let world: BenchWorld
    let links: [BenchWorld.Link]
    let endpoint: ServerEndpoint

    struct Counts: Sendable {
        var lost = 0
        var duplicated = 0
    }

    /// Counts, then again every 500 ms while a message has no reply yet, for at most `limit`: a reply still in
    /// flight is late, not lost.
    func countOnceSettled(waitingAtMost limit: Duration) async throws -> Counts {
        let start = ContinuousClock.now
        var counts = try await count()
        while counts.lost > 0 && ContinuousClock.now - start < limit {
            try await Task.sleep(for: .milliseconds(500))
            counts = try await count()
        }
        return counts
    }

    /// Reads every linked conversation (pages of 500) and counts.
    func count() async throws -> Counts {
        var counts = Counts()
        for link in links {
            let client = world.restClient(forPerson: link.person, on: endpoint)
            var messages: [Message] = []
            var after = 0
            while true {
                let page = try await client.messages(in: link.conversationId, afterSeq: after, limit: 500)
                messages += page.messages
                guard page.hasMore, let last = page.messages.last else { break }
                after = last.seq
            }
            let personId = world.people[link.person].userId
            var sent: [String: Int] = [:]
            var replies: [String: Int] = [:]
            for message in messages {
                guard let body = message.body else { continue }
                if message.senderId == personId {
                    sent[body, default: 0] += 1
                } else if body.hasPrefix("echo: ") {
                    replies[String(body.dropFirst(6)), default: 0] += 1
                }
            }
            for (body, copies) in sent {
                let answered = replies[body] ?? 0
                if answered == 0 { counts.lost += 1 }
                if answered > 1 || copies > 1 { counts.duplicated += 1 }
            }
        }
        return counts
    }
}

extension BenchWorld {
    /// A REST client signed in as person `index` (the tokens the world's builder got for them).
    func restClient(forPerson index: Int, on endpoint: ServerEndpoint) -> ChatterRESTClient {
        let account = people[index]
        return ChatterRESTClient(
            configuration: endpoint.configuration,
            tokenStore: ChatterTokenStore(tokens: SessionTokens(accessToken: account.accessToken, refreshToken: account.refreshToken)))
    }
}
