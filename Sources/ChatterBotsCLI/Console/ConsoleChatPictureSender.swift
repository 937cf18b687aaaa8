import BotRuntime
import ChatterBots
import Foundation

/// Sends a picture with a caption from the console, as a sandbox test user, to a bot: signs in as the user (a
/// device of its own), uploads the picture, posts it in their direct conversation, signs out. The user's chat,
/// open in the page, shows it and the bot's answer as they arrive.
struct ConsoleChatPictureSender: Sendable {
    let server: ChatterServerConfiguration

    /// The picture types the page may send.
    static let contentTypes: Set<String> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

    func send(
        _ picture: Data, contentType: String, caption: String?, as account: SandboxTestAccount, to username: String
    ) async throws(ConsoleInputError) {
        let client = ChatterRESTClient(configuration: server)
        do {
            _ = try await client.login(
                username: account.username, password: account.password, deviceId: nil,
                device: DeviceDescription(name: "ChatterBots web console (pictures)", platform: "web"))
        } catch {
            throw ConsoleInputError("cannot sign in as \(account.username) on the sandbox: \(error)")
        }
        let failure: ConsoleInputError?
        do {
            let matches = try await client.users(username: username)
            guard let user = matches.first(where: { $0.username.lowercased() == username.lowercased() }) else {
                throw ConsoleInputError("there is no user \(username) on the sandbox")
            }
            let conversation = try await client.directConversation(with: user.id)
            let upload = try await client.uploadMedia(picture, contentType: contentType)
            _ = try await client.postMessage(
                .media(.photo, upload.mediaId, caption: caption), clientMessageId: .random(), in: conversation.id)
            failure = nil
        } catch let error as ConsoleInputError {
            failure = error
        } catch {
            failure = ConsoleInputError("the sandbox refused the picture: \(error)")
        }
        try? await client.logout()
        if let failure { throw failure }
    }
}
