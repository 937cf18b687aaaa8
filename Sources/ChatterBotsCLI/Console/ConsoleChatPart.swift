import BotRuntime
import Foundation

/// A test user's chat as a part of a console event stream: `{"as": "alice"}` runs alice's chat client while the part
/// runs, and sends `ready` once it listens, `lines` with what the client prints (`[{"text": …, "tone": …}]`), and
/// `ended` when the client ended (`/quit`, or it could not go on), after which the part has nothing more to send.
struct ConsoleChatPart: ConsoleStreamPart {
    let name = "chat"
    /// Running it signs the test user in.
    let acts = true
    let accounts: [SandboxTestAccount]
    let sessions: ConsoleChatSessions

    func feed(for choice: [String: Any]) throws(ConsoleInputError) -> ConsoleStreamFeed {
        let usernames = accounts.map(\.username).joined(separator: ", ")
        guard let username = choice["as"] as? String, let account = accounts.first(where: { $0.username == username }) else {
            throw ConsoleInputError("choose the chat with {\"as\": a test account}: one of \(usernames)")
        }
        if let key = choice.keys.first(where: { $0 != "as" }) {
            throw ConsoleInputError("chat.\(key) is not a choice of the chat; send {\"as\": one of \(usernames)}")
        }
        return feed(as: account)
    }

    func feed(as account: SandboxTestAccount) -> ConsoleStreamFeed {
        { [sessions] events in
            let (id, lines) = await sessions.listen(as: account)
            if await events.send(events.event("ready", Array("{}".utf8))) {
                for await batch in lines {
                    guard let data = try? JSONSerialization.data(
                        withJSONObject: batch.map(ConsoleChatRoutes.lineObject), options: [.withoutEscapingSlashes]),
                        await events.send(events.event("lines", Array(data)))
                    else { break }
                }
                // The chat client ended (/quit, or it could not go on): the page must not reopen it behind the person.
                if !Task.isCancelled { _ = await events.send(events.event("ended", Array("{}".utf8))) }
            }
            await sessions.stopListening(as: account.username, id: id)
        }
    }
}
