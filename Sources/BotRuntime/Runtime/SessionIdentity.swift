import ChatterBots
import Synchronization

/// The account and device a session is signed in as.
struct SignedInDevice: Sendable, Equatable {
    var userId: User.ID
    var deviceId: Device.ID
}

/// Who a session is signed in as, once known: set by the sign-in (nil before the first one, and while a sign-in
/// replaces it), read by what acts as the bot (handlers, the admission, the storing of rotated tokens).
final class SessionIdentity: Sendable {
    /// The bot's name in bots.json.
    let botName: String
    private let state: Mutex<SignedInDevice?>

    init(botName: String, device: SignedInDevice?) {
        self.botName = botName
        self.state = Mutex(device)
    }

    /// The signed-in account and device; nil before the first sign-in.
    var device: SignedInDevice? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }

    /// The bot as handlers see it; nil before the first sign-in.
    var bot: BotIdentity? {
        device.map { BotIdentity(name: botName, userId: $0.userId) }
    }
}

/// The `expiresIn` of a sign-in, from the request that returned it to the storing of its tokens.
final class TokenLifetimeNote: Sendable {
    private let seconds = Mutex<Int?>(nil)

    /// The sign-in that produced the tokens about to be stored said they expire in `value` seconds.
    func note(_ value: Int) { seconds.withLock { $0 = value } }

    /// The noted lifetime, once; nil when none was noted (a refresh the REST client made by itself).
    func take() -> Int? { seconds.withLock { $0.take() } }
}
