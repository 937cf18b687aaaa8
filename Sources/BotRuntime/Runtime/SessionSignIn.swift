import ChatterBots
import Foundation

/// Signing a bot in (design.md point 1): the stored refresh token first, then a password login that passes the
/// stored `deviceId`, so a bot is one device for its whole life. Tokens are stored before they are used.
struct SessionSignIn: Sendable {
    let credentials: BotCredentials
    let identity: SessionIdentity
    let tokenStore: ChatterTokenStore
    /// Where a sign-in notes its tokens' lifetime for `tokenStore`'s persistence.
    let tokenLifetime: TokenLifetimeNote
    let store: BotStore
    let rest: ChatterRESTClient
    let outbox: OutboxSender
    let friends: FriendDirectory
    let clock: any ChatterClock
    let log: SessionLog

    /// The device description a bot signs in with.
    var device: DeviceDescription {
        DeviceDescription(name: "ChatterBots \(identity.botName)", platform: "chatterbots")
    }

    /// Signs in with `method`; nil on success, else why it failed. `staleAccessToken` is the token a 4001 refused:
    /// when the tokens already moved on (the REST client refreshed meanwhile), no second refresh is made.
    func signIn(_ method: SignInMethod, staleAccessToken: String?) async -> SignInFailure? {
        switch method {
        case .refreshToken: await refresh(staleAccessToken: staleAccessToken)
        case .freshLogin: await login()
        }
    }

    private func refresh(staleAccessToken: String?) async -> SignInFailure? {
        let stored: StoredSession?
        do {
            stored = try await store.session()
        } catch {
            return .unavailable("the store could not be read: \(error)")
        }
        guard let stored else { return .invalidRefreshToken }
        let device = SignedInDevice(userId: stored.userId, deviceId: stored.deviceId)
        if await tokenStore.tokens == nil {
            identity.device = nil  // no need to store what was just read
            await tokenStore.replace(with: stored.tokens)
        }
        identity.device = device
        let (rest, tokenLifetime) = (rest, tokenLifetime)
        do {
            _ = try await tokenStore.refreshed(replacing: staleAccessToken) { refreshToken in
                let session = try await rest.send(ChatterAPI.refresh(RefreshBody(refreshToken: refreshToken)))
                tokenLifetime.note(session.expiresIn)
                return session.tokens
            }
            log.info("signed in with the stored refresh token", ["device": stored.deviceId.rawValue])
            return nil
        } catch {
            return SignInFailure(signInError: error)
        }
    }

    private func login() async -> SignInFailure? {
        let storedDevice: Device.ID?
        let previousUser: User.ID?
        do {
            storedDevice = try await store.session()?.deviceId
            previousUser = try await store.accountUserId()
        } catch {
            return .unavailable("the store could not be read: \(error)")
        }
        identity.device = nil
        do {
            let session = try await rest.login(
                username: credentials.username, password: credentials.password, deviceId: storedDevice, device: device)
            if let previousUser, previousUser != session.user.id {
                try await wipeData(of: previousUser, signedInAs: session.user.id)
            }
            identity.device = SignedInDevice(userId: session.user.id, deviceId: session.deviceId)
            try await store.saveSession(StoredSession(session, receivedAt: clock.now))
            log.info("signed in with the password", [
                "username": credentials.username, "device": session.deviceId.rawValue,
                "newDevice": String(storedDevice != session.deviceId),
            ])
            return nil
        } catch let error as BotStoreError {
            return .unavailable("the new session could not be stored: \(error)")
        } catch {
            return SignInFailure(signInError: error)
        }
    }

    /// The login returned another user than the one the store's data belongs to: the account was deleted and
    /// re-created under the same username. The old user's outbox, state, cursors and schedules must not act as
    /// the new one, so they are deleted, on disk and in memory, before anything else runs.
    private func wipeData(of previousUser: User.ID, signedInAs user: User.ID) async throws(BotStoreError) {
        let wipe = try await store.wipeAccountData()
        outbox.discardAll(failingWaitersWith: BotContextError.accountReplaced(previous: previousUser, current: user))
        log.warning("signed in as another user than the store's: the account was re-created; the old account's data is deleted", [
            "previousUser": previousUser.rawValue, "user": user.rawValue, "deleted": wipe.description,
        ])
        do {
            try await friends.load()
        } catch {
            log.error("could not reload the friends list after the wipe: \(error)")
        }
    }

    /// Forgets the device's tokens and id after a revocation (close 4003); the next login creates a new device.
    func clearSession() async {
        identity.device = nil
        await tokenStore.replace(with: nil)
        do {
            if let revoked = try await store.clearSession() {
                log.warning("the device was revoked; its session data is cleared", ["device": revoked.deviceId.rawValue])
            }
        } catch {
            log.error("could not clear the revoked session: \(error)")
        }
    }
}
