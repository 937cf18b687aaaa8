import BotRuntime
import ChatterBots
import Foundation

/// Sends a picture with a caption from the console, as a sandbox test user, to a bot: uploads the picture and posts
/// it in their direct conversation from the console's device of the user. The user's chat, open in the page, shows
/// it and the bot's answer as they arrive.
struct ConsoleChatPictureSender: Sendable {
    let clients: ConsoleTestUserClients

    /// The picture types the page may send, and shows inline.
    static let contentTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    func send(
        _ picture: Data, contentType: String, caption: String?, as account: SandboxTestAccount, to username: String
    ) async throws(ConsoleInputError) {
        let client = try await clients.client(for: account)
        do {
            let matches = try await client.users(username: username)
            guard let user = matches.first(where: { $0.username.lowercased() == username.lowercased() }) else {
                throw ConsoleInputError("there is no user \(username) on the sandbox")
            }
            let conversation = try await client.directConversation(with: user.id)
            let upload = try await client.uploadMedia(picture, contentType: contentType)
            _ = try await client.postMessage(
                .media(.photo, upload.mediaId, caption: caption), clientMessageId: .random(), in: conversation.id)
        } catch let error as ConsoleInputError {
            throw error
        } catch {
            throw ConsoleInputError("the sandbox refused the picture: \(error)")
        }
    }
}
