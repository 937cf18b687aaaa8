import ChatterBots
import SQLite

// Accounts, devices, tokens and client credentials.
extension ChatterService {
    // MARK: Client credentials

    /// Refuses a missing or unknown client key (`INVALID_CLIENT_KEY`).
    public func validateClientKey(_ clientKey: String?) throws(ChatterErrorBody) {
        guard let clientKey, configuration.clients.contains(where: { $0.clientKey == clientKey }) else {
            throw SandboxAuthError.invalidClientKey.errorBody
        }
    }

    /// Checks the developer credentials (`X-Client-Key` + `X-Client-Secret`) and the client key's request rate.
    public func authorizeDeveloper(clientKey: String?, clientSecret: String?) throws(ChatterErrorBody) {
        try validateClientKey(clientKey)
        guard let clientSecret, configuration.clients.contains(where: { $0.clientKey == clientKey && $0.clientSecret == clientSecret })
        else {
            throw ChatterErrorBody(code: .unauthorized, message: "The client secret is missing or does not match the client key.")
        }
        try admitAnonymousRequest(clientKey: clientKey ?? "")
    }

    /// Counts a request that has no user or device to charge (register, developer) against its client key's rate.
    public func admitAnonymousRequest(clientKey: String) throws(ChatterErrorBody) {
        if let seconds = take(["client:\(clientKey)"], limit: configuration.clientRateLimit) {
            throw SandboxAuthError.rateLimited(seconds: seconds).errorBody
        }
    }

    /// Counts one request of the device against its budget (`deviceRateLimit`).
    public func admitDeviceRequest(_ deviceId: Device.ID) throws(SandboxAuthError) {
        if let seconds = take(["device:\(deviceId.rawValue)"], limit: configuration.deviceRateLimit) {
            throw .rateLimited(seconds: seconds)
        }
    }

    /// Takes one request from each bucket; the seconds to wait when one is empty, nil when admitted.
    private func take(_ keys: [String], limit: SandboxRateLimit) -> Int? {
        let time = clock.now
        for key in keys {
            if case .limited(let seconds) = rateLimiter.withLock({ $0.admit(key, limit: limit, at: time) }) { return seconds }
        }
        return nil
    }

    // MARK: Access tokens

    /// The caller an access token belongs to, after the client key, token and device checks and the device's
    /// rate limit; used for every REST user request and every realtime connect.
    public func authenticate(clientKey: String, accessToken: String) async throws(SandboxAuthError) -> SandboxCaller {
        guard configuration.clients.contains(where: { $0.clientKey == clientKey }) else { throw .invalidClientKey }
        let caller = try await verifyAccessToken(accessToken).caller
        try admitDeviceRequest(caller.deviceId)
        return caller
    }

    /// Who an access token signs in and until when, without spending the device's budget: the realtime endpoint
    /// checks a socket's token again once the socket can be found by revocations, and arms its expiry.
    public func verifyAccessToken(_ accessToken: String) async throws(SandboxAuthError) -> SandboxAccessGrant {
        guard !accessToken.isEmpty else { throw .invalidToken }
        let digest = TokenDigest.sha256(accessToken)
        let found: Row?
        do {
            found = try await store.read { db in
                try db.fetchOne(
                    sql: """
                        SELECT t.device_id, t.expires_at, d.user_id, d.revoked_at
                        FROM access_tokens t JOIN devices d ON d.id = t.device_id WHERE t.token_hash = ?
                        """,
                    arguments: [digest])
            }
        } catch {
            throw .unavailable(reason: "the sandbox's store failed: \(error)")
        }
        guard let row = found,
            let deviceId: String = try? row["device_id"], let userId: String = try? row["user_id"],
            let expiresAt: Int64 = try? row["expires_at"]
        else { throw .invalidToken }
        if (try? row["revoked_at"] as Int64?) ?? nil != nil { throw .deviceRevoked }
        guard expiresAt > now.millisecondsSince1970 else { throw .expired }
        return SandboxAccessGrant(
            caller: SandboxCaller(userId: User.ID(userId), deviceId: Device.ID(deviceId)),
            expiresAt: Timestamp(millisecondsSince1970: expiresAt))
    }

    // MARK: Register, login, refresh, logout

    /// `POST /auth/register`: a new account signed in on a new device.
    public func register(_ body: RegisterBody) async throws(ChatterErrorBody) -> AuthSession {
        let account = try await newAccount(username: body.username, password: body.password, displayName: body.displayName)
        let deviceId: Device.ID = identifiers.make(at: account.createdAt)
        let tokens = SessionTokens(accessToken: SecureRandom.token(), refreshToken: SecureRandom.token())
        return try await write { db in
            let user = try self.insert(account, db)
            try db.insertDevice(id: deviceId, userId: user.id, name: "Registration", platform: "unknown", at: account.createdAt)
            return try self.issueSession(db, tokens: tokens, deviceId: deviceId, userId: user.id, at: account.createdAt)
        }
    }

    /// Creates an account without signing it in (sandbox seeding): the same rules as `register`.
    public func createUser(username: String, password: String, displayName: String) async throws(ChatterErrorBody) -> User {
        let account = try await newAccount(username: username, password: password, displayName: displayName)
        return try await write { db in try self.insert(account, db) }
    }

    /// An account checked by the registration rules, its password hashed, ready to insert.
    private struct NewAccount: Sendable {
        var id: User.ID
        var username: String
        var displayName: String
        var password: PasswordHasher.Hash
        var createdAt: Timestamp
    }

    private func newAccount(username: String, password: String, displayName: String) async throws(ChatterErrorBody) -> NewAccount {
        let username = try validatedUsername(username)
        let displayName = try validatedDisplayName(displayName)
        try validatePassword(password)
        let hash = await PasswordHasher.hash(password, iterations: configuration.passwordHashIterations)
        let time = now
        return NewAccount(id: identifiers.make(at: time), username: username, displayName: displayName, password: hash, createdAt: time)
    }

    /// Inserts the account unless its username is taken (whatever its case).
    private func insert(_ account: NewAccount, _ db: Database) throws -> User {
        guard try db.storedUser(username: account.username) == nil else {
            throw ChatterErrorBody.validation(field: "username", "The username \"\(account.username)\" is taken. Choose another.")
        }
        try db.insertUser(
            id: account.id, username: account.username, displayName: account.displayName, password: account.password,
            at: account.createdAt)
        return User(id: account.id, username: account.username, displayName: account.displayName)
    }

    /// `POST /auth/login`. With the `deviceId` of one of the user's devices, that device signs in again and its
    /// old tokens die; otherwise a new device is created. Every attempt counts against `signInRateLimit` for the
    /// username and for the device id it names, before the password is checked.
    public func login(_ body: LoginBody) async throws(ChatterErrorBody) -> AuthSession {
        let deviceName = try validatedDeviceField(body.device.name, field: "device.name")
        let platform = try validatedDeviceField(body.device.platform, field: "device.platform")
        let username = body.username
        let signInKeys = ["sign-in:user:\(username.lowercased())"] + (body.deviceId.map { ["sign-in:device:\($0.rawValue)"] } ?? [])
        if let seconds = take(signInKeys, limit: configuration.signInRateLimit) {
            throw SandboxAuthError.rateLimited(seconds: seconds).errorBody
        }
        let stored = try await read { db in try db.storedUser(username: username) }
        guard let stored else {
            // Spend the same time as a real check, so a response time does not reveal which usernames exist.
            _ = await PasswordHasher.verify(body.password, against: PasswordHasher.Hash(
                salt: [0], digest: [], iterations: configuration.passwordHashIterations))
            throw .invalidCredentials
        }
        guard await PasswordHasher.verify(body.password, against: stored.password) else { throw .invalidCredentials }
        let time = now
        let newDeviceId: Device.ID = identifiers.make(at: time)
        let tokens = SessionTokens(accessToken: SecureRandom.token(), refreshToken: SecureRandom.token())
        let requestedDevice = body.deviceId
        return try await write { db in
            var deviceId = newDeviceId
            if let requestedDevice, let device = try db.storedDevice(requestedDevice), device.userId == stored.id {
                deviceId = device.id
                try db.deleteTokens(ofDevice: deviceId)
                try db.execute(
                    sql: "UPDATE devices SET name = ?, platform = ?, revoked_at = NULL, signed_in_at = ? WHERE id = ?",
                    arguments: [deviceName, platform, time.millisecondsSince1970, deviceId.rawValue])
            } else {
                try db.insertDevice(id: deviceId, userId: stored.id, name: deviceName, platform: platform, at: time)
            }
            return try self.issueSession(db, tokens: tokens, deviceId: deviceId, userId: stored.id, at: time)
        }
    }

    /// `POST /auth/refresh`: a new token pair; the refresh token presented works only this once. A refresh is one
    /// request of its device (`deviceRateLimit`); an unknown token is refused without a bucket (256 random bits
    /// are not guessed).
    public func refresh(_ body: RefreshBody) async throws(ChatterErrorBody) -> AuthSession {
        let digest = TokenDigest.sha256(body.refreshToken)
        let time = now
        let tokens = SessionTokens(accessToken: SecureRandom.token(), refreshToken: SecureRandom.token())
        return try await write { db in
            guard let row = try db.fetchOne(
                sql: """
                    SELECT t.device_id, t.expires_at, t.used_at, d.user_id, d.revoked_at
                    FROM refresh_tokens t JOIN devices d ON d.id = t.device_id WHERE t.token_hash = ?
                    """,
                arguments: [digest])
            else { throw ChatterErrorBody.invalidRefreshToken }
            let usedAt: Int64? = try row["used_at"]
            let revokedAt: Int64? = try row["revoked_at"]
            let expiresAt: Int64 = try row["expires_at"]
            guard usedAt == nil, revokedAt == nil, expiresAt > time.millisecondsSince1970 else {
                throw ChatterErrorBody.invalidRefreshToken
            }
            let deviceId = Device.ID(try row["device_id"] as String)
            do throws(SandboxAuthError) {
                try self.admitDeviceRequest(deviceId)
            } catch {
                throw error.errorBody
            }
            try db.execute(
                sql: "UPDATE refresh_tokens SET used_at = ? WHERE token_hash = ?", arguments: [time.millisecondsSince1970, digest])
            let userId = User.ID(try row["user_id"] as String)
            return try self.issueSession(db, tokens: tokens, deviceId: deviceId, userId: userId, at: time)
        }
    }

    /// `POST /auth/logout`: revokes the caller's device (its refresh tokens die, its push token is dropped;
    /// its sockets must close with 4003: the router tells the event sink).
    public func logout(_ caller: SandboxCaller) async throws(ChatterErrorBody) {
        _ = try await revokeDevice(caller.deviceId)
    }

    /// Revokes a device: sign-out without its cooperation (logout, or the sandbox's admin fault). Its access
    /// tokens then authenticate as `deviceRevoked`. Returns false for an unknown device.
    public func revokeDevice(_ deviceId: Device.ID) async throws(ChatterErrorBody) -> Bool {
        let time = now
        return try await write { db in
            guard try db.storedDevice(deviceId) != nil else { return false }
            try db.execute(
                sql: """
                    UPDATE devices SET revoked_at = coalesce(revoked_at, ?), push_token = NULL, push_environment = NULL
                    WHERE id = ?
                    """,
                arguments: [time.millisecondsSince1970, deviceId.rawValue])
            try db.execute(sql: "DELETE FROM refresh_tokens WHERE device_id = ?", arguments: [deviceId.rawValue])
            return true
        }
    }

    /// Makes every access token of the device expired now (the sandbox's "expire a token" fault). Returns how
    /// many tokens it touched.
    public func expireAccessTokens(of deviceId: Device.ID) async throws(ChatterErrorBody) -> Int {
        let time = now
        return try await write { db in
            try db.execute(
                sql: "UPDATE access_tokens SET expires_at = ? WHERE device_id = ? AND expires_at > ?",
                arguments: [time.millisecondsSince1970, deviceId.rawValue, time.millisecondsSince1970])
            return db.changes
        }
    }

    /// Spends every unused refresh token of a device, as if someone else had used them: its next refresh is refused
    /// with `INVALID_REFRESH_TOKEN`, and it must sign in again. Returns how many were spent.
    package func spendRefreshTokens(of deviceId: Device.ID) async throws(ChatterErrorBody) -> Int {
        let time = now
        return try await write { db in
            try db.execute(
                sql: "UPDATE refresh_tokens SET used_at = ? WHERE device_id = ? AND used_at IS NULL",
                arguments: [time.millisecondsSince1970, deviceId.rawValue])
            return db.changes
        }
    }

    // MARK: Push tokens

    /// `PUT /me/devices/current/push-token`. A token moves: another device that held it loses it.
    public func setPushToken(_ caller: SandboxCaller, _ body: PushTokenBody) async throws(ChatterErrorBody) {
        let token = body.token.trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty, token.count <= 200 else {
            throw .validation(field: "token", "The push token must be the device token as a hex string (1 to 200 characters).")
        }
        try await write { db in
            try db.execute(
                sql: "UPDATE devices SET push_token = NULL, push_environment = NULL WHERE push_token = ? AND id <> ?",
                arguments: [token, caller.deviceId.rawValue])
            try db.execute(
                sql: "UPDATE devices SET push_token = ?, push_environment = ? WHERE id = ?",
                arguments: [token, body.environment.rawValue, caller.deviceId.rawValue])
        }
    }

    /// `DELETE /me/devices/current/push-token`: no more pushes to this device.
    public func removePushToken(_ caller: SandboxCaller) async throws(ChatterErrorBody) {
        try await write { db in
            try db.execute(
                sql: "UPDATE devices SET push_token = NULL, push_environment = NULL WHERE id = ?",
                arguments: [caller.deviceId.rawValue])
        }
    }

    // MARK: Helpers

    func issueSession(_ db: Database, tokens: SessionTokens, deviceId: Device.ID, userId: User.ID, at time: Timestamp) throws -> AuthSession {
        guard let user = try db.storedUser(userId) else { throw ChatterErrorBody.userNotFound }
        try db.insertAccessToken(
            tokens.accessToken, device: deviceId, expiresAt: time.advanced(by: configuration.accessTokenLifetime), at: time)
        try db.insertRefreshToken(
            tokens.refreshToken, device: deviceId, expiresAt: time.advanced(by: configuration.refreshTokenLifetime), at: time)
        return AuthSession(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            expiresIn: Int(configuration.accessTokenLifetime.components.seconds), deviceId: deviceId, user: user.user)
    }

    func validatedUsername(_ username: String) throws(ChatterErrorBody) -> String {
        if let problem = configuration.accountRules.usernameProblem(username) { throw .validation(field: "username", problem) }
        return username
    }

    func validatedDisplayName(_ displayName: String) throws(ChatterErrorBody) -> String {
        let trimmed = displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...64).contains(trimmed.count) else {
            throw .validation(field: "displayName", "A display name has 1 to 64 characters, not only spaces.")
        }
        return trimmed
    }

    func validatePassword(_ password: String) throws(ChatterErrorBody) {
        if let problem = configuration.accountRules.passwordProblem(password) { throw .validation(field: "password", problem) }
    }

    private func validatedDeviceField(_ value: String, field: String) throws(ChatterErrorBody) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(trimmed.count) else {
            throw .validation(field: field, "\(field) must have 1 to 100 characters.")
        }
        return trimmed
    }
}
