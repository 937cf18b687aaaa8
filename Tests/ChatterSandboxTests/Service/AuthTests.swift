import ChatterBots
import ChatterSandbox
import Foundation
import SQLite
import Testing
import WebSocket

@Suite("Accounts, devices and tokens")
struct AuthTests {
    @Test func registerCreatesTheAccountSignedInOnANewDevice() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana_souza", displayName: "Ana Souza")

        #expect(ana.user.username == "ana_souza")
        #expect(ana.user.displayName == "Ana Souza")
        #expect(ana.session.expiresIn == 3600)
        #expect(ana.user.id.rawValue.count == 26)
        let caller = try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        #expect(caller == ana.caller)
    }

    @Test func passwordsAreStoredAsSaltedPBKDF2HashesWithTheConfiguredIterations() async throws {
        let harness = try await ServiceHarness.make(.testing { $0.passwordHashIterations = 1_234 })
        _ = try await harness.signUp("ana")
        _ = try await harness.signUp("ben")

        let rows = try await harness.service.store.read { db in
            try db.fetchAll(sql: "SELECT password_salt, password_hash, password_iterations FROM users ORDER BY username")
        }
        let salts: [Data] = try rows.map { try $0["password_salt"] }
        let hashes: [Data] = try rows.map { try $0["password_hash"] }
        #expect(salts.allSatisfy { $0.count == 16 })
        #expect(hashes.allSatisfy { $0.count == 32 })
        #expect(salts[0] != salts[1])
        #expect(hashes[0] != hashes[1], "the same password hashes differently under different salts")
        #expect(try rows.allSatisfy { try $0["password_iterations"] as Int == 1_234 })
        #expect(!hashes.contains(Data(ServiceHarness.password.utf8)))
    }

    @Test func tokensAreStoredOnlyAsDigests() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")

        let stored = try await harness.service.store.read { db in
            try db.fetchAll(Data.self, sql: "SELECT token_hash FROM access_tokens UNION ALL SELECT token_hash FROM refresh_tokens")
        }
        #expect(stored.count == 2)
        #expect(!stored.contains(Data(ana.session.accessToken.utf8)))
        #expect(!stored.contains(Data(ana.session.refreshToken.utf8)))
        #expect(Data(base64Encoded: ana.accessToken.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "=")?.count == 32)
    }

    @Test func registeringATakenUsernameFailsWhateverItsCase() async throws {
        let harness = try await ServiceHarness.make()
        _ = try await harness.signUp("ana")
        await expectAPIError(.validationFailed, field: "username") {
            try await harness.service.register(RegisterBody(username: "ANA", password: ServiceHarness.password, displayName: "Other"))
        }
    }

    @Test func loginWithAWrongPasswordOrUnknownUserIsInvalidCredentials() async throws {
        let harness = try await ServiceHarness.make()
        _ = try await harness.signUp("ana")
        let device = DeviceDescription(name: "bot", platform: "linux")
        await expectAPIError(.invalidCredentials) {
            try await harness.service.login(LoginBody(username: "ana", password: "wrong password", device: device))
        }
        await expectAPIError(.invalidCredentials) {
            try await harness.service.login(LoginBody(username: "nobody", password: ServiceHarness.password, device: device))
        }
    }

    @Test func loginWithoutADeviceIdCreatesANewDevice() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let device = DeviceDescription(name: "bot", platform: "linux")
        let first = try await harness.service.login(LoginBody(username: "ana", password: ana.password, device: device))
        let second = try await harness.service.login(LoginBody(username: "ana", password: ana.password, device: device))

        #expect(Set([ana.session.deviceId, first.deviceId, second.deviceId]).count == 3)
        #expect(try await harness.service.devices(ofUsers: [ana.id]).count == 3)
    }

    @Test func loginWithTheStoredDeviceIdKeepsOneDeviceAndKillsItsOldTokens() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let device = DeviceDescription(name: "reminder-bot", platform: "linux")
        let first = try await harness.service.login(LoginBody(username: "ana", password: ana.password, device: device))
        let again = try await harness.service.login(
            LoginBody(username: "ana", password: ana.password, deviceId: first.deviceId, device: device))

        #expect(again.deviceId == first.deviceId)
        #expect(try await harness.service.devices(ofUsers: [ana.id]).map(\.id) == [ana.session.deviceId, first.deviceId])
        await #expect(throws: SandboxAuthError.invalidToken) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: first.accessToken)
        }
        await expectAPIError(.invalidRefreshToken) {
            try await harness.service.refresh(RefreshBody(refreshToken: first.refreshToken))
        }
        let caller = try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: again.accessToken)
        #expect(caller.deviceId == first.deviceId)
    }

    @Test func loginWithAnotherUsersDeviceIdCreatesANewDevice() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let session = try await harness.service.login(
            LoginBody(username: "ben", password: ben.password, deviceId: ana.session.deviceId, device: DeviceDescription(name: "x", platform: "y")))

        #expect(session.deviceId != ana.session.deviceId)
        _ = try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
    }

    @Test func refreshRotatesAndEachRefreshTokenWorksOnce() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let refreshed = try await harness.service.refresh(RefreshBody(refreshToken: ana.session.refreshToken))

        #expect(refreshed.refreshToken != ana.session.refreshToken)
        #expect(refreshed.accessToken != ana.session.accessToken)
        #expect(refreshed.deviceId == ana.session.deviceId)
        #expect(try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: refreshed.accessToken) == ana.caller)
        await expectAPIError(.invalidRefreshToken) {
            try await harness.service.refresh(RefreshBody(refreshToken: ana.session.refreshToken))
        }
        _ = try await harness.service.refresh(RefreshBody(refreshToken: refreshed.refreshToken))
    }

    @Test func anUnknownRefreshTokenIsRefused() async throws {
        let harness = try await ServiceHarness.make()
        await expectAPIError(.invalidRefreshToken) {
            try await harness.service.refresh(RefreshBody(refreshToken: "not-a-token"))
        }
    }

    @Test func accessTokensExpireAfterTheirLifetime() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        await harness.clock.advance(by: .seconds(3599))
        _ = try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        await harness.clock.advance(by: .seconds(1))

        await #expect(throws: SandboxAuthError.expired) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        }
        expectErrorResponse(await harness.call(.get, "/me", as: ana), .unauthorized)
    }

    @Test func logoutRevokesTheDeviceItsRefreshTokenAndItsPushToken() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        try await harness.service.setPushToken(ana.caller, PushTokenBody(token: String(repeating: "a", count: 64), environment: .sandbox))

        let response = await harness.call(.post, "/auth/logout", as: ana)

        #expect(response.status == .noContent)
        #expect(await harness.sink.revokedDevices == [ana.session.deviceId])
        await #expect(throws: SandboxAuthError.deviceRevoked) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        }
        await expectAPIError(.invalidRefreshToken) {
            try await harness.service.refresh(RefreshBody(refreshToken: ana.session.refreshToken))
        }
        #expect(try await harness.service.devices(ofUsers: [ana.id]).isEmpty)
        let token = try await harness.service.store.read { db in
            try db.fetchOne(String?.self, sql: "SELECT push_token FROM devices WHERE id = ?", arguments: [ana.session.deviceId.rawValue])
        }
        #expect(token == .some(nil))
        expectErrorResponse(await harness.call(.get, "/me", as: ana), .unauthorized)
    }

    @Test func signingInAgainWithARevokedDevicesIdRestoresThatOneDevice() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        try await harness.service.logout(ana.caller)
        let again = try await harness.service.login(
            LoginBody(username: "ana", password: ana.password, deviceId: ana.session.deviceId, device: DeviceDescription(name: "bot", platform: "linux")))

        #expect(again.deviceId == ana.session.deviceId)
        #expect(try await harness.service.devices(ofUsers: [ana.id]).map(\.id) == [ana.session.deviceId])
        await #expect(throws: SandboxAuthError.invalidToken) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        }
    }

    @Test func expiringADevicesTokensMakesThemAuthenticateAsExpired() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        #expect(try await harness.service.expireAccessTokens(of: ana.session.deviceId) == 1)
        await #expect(throws: SandboxAuthError.expired) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        }
    }

    @Test func anUnknownClientKeyFailsBeforeTheToken() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        await #expect(throws: SandboxAuthError.invalidClientKey) {
            try await harness.service.authenticate(clientKey: "ck_other", accessToken: ana.accessToken)
        }
        await #expect(throws: SandboxAuthError.invalidToken) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: "")
        }
    }

    @Test func authErrorsCarryTheRealtimeCloseCodes() {
        #expect(SandboxAuthError.invalidToken.closeCode.rawValue == 4001)
        #expect(SandboxAuthError.expired.closeCode.rawValue == 4001)
        #expect(SandboxAuthError.invalidClientKey.closeCode.rawValue == 4002)
        #expect(SandboxAuthError.deviceRevoked.closeCode.rawValue == 4003)
        #expect(SandboxAuthError.rateLimited(seconds: 7).closeCode.rawValue == 4008)
        #expect(SandboxAuthError.rateLimited(seconds: 7).closeReason == "7")
        #expect(SandboxAuthError.invalidClientKey.errorBody.code == .invalidClientKey)
        #expect(SandboxAuthError.deviceRevoked.errorBody.code == .unauthorized)
        #expect(SandboxAuthError.unavailable(reason: "disk").closeCode == .internalServerError)
        #expect(SandboxAuthError.unavailable(reason: "disk").errorBody.code == .internalError)
    }

    @Test func aDeviceOverItsRateIsRefusedWithTheSecondsToWaitUntilItsBucketRefills() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.deviceRateLimit = SandboxRateLimit(requests: 3, window: .seconds(60))
        })
        let ana = try await harness.signUp("ana")
        for _ in 0..<3 { _ = try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken) }

        await #expect(throws: SandboxAuthError.rateLimited(seconds: 20)) {
            try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
        }
        await harness.clock.advance(by: .seconds(20))
        _ = try await harness.service.authenticate(clientKey: "ck_sandbox", accessToken: ana.accessToken)
    }

    private func signIn(_ harness: ServiceHarness, _ username: String, _ password: String, device: Device.ID? = nil) async throws -> AuthSession {
        try await harness.service.login(
            LoginBody(username: username, password: password, deviceId: device, device: DeviceDescription(name: "phone", platform: "test")))
    }

    @Test func passwordGuessesAreLimitedPerUsernameAndDoNotLockOtherUsersOut() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.signInRateLimit = SandboxRateLimit(requests: 3, window: .seconds(60))
        })
        _ = try await harness.signUp("ana")
        _ = try await harness.signUp("ben")
        for _ in 0..<3 {
            await expectAPIError(.invalidCredentials) { try await signIn(harness, "ana", "guess guess") }
        }

        let limited = await expectAPIError(.rateLimited) { try await signIn(harness, "ANA", ServiceHarness.password) }
        #expect(limited?.details?["retryAfter"]?.doubleValue == 20, "even the right password waits: the limit is the guessing")
        _ = try await signIn(harness, "ben", ServiceHarness.password)
        await harness.clock.advance(by: .seconds(20))
        _ = try await signIn(harness, "ana", ServiceHarness.password)
    }

    @Test func signInsNamingOneDeviceAreLimitedWhateverTheUsername() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.signInRateLimit = SandboxRateLimit(requests: 2, window: .seconds(60))
        })
        let ana = try await harness.signUp("ana")
        for name in ["nobody1", "nobody2"] {
            await expectAPIError(.invalidCredentials) { try await signIn(harness, name, "guess guess", device: ana.session.deviceId) }
        }
        await expectAPIError(.rateLimited) { try await signIn(harness, "ana", ServiceHarness.password, device: ana.session.deviceId) }
        let elsewhere = try await signIn(harness, "ana", ServiceHarness.password)
        #expect(elsewhere.deviceId != ana.session.deviceId, "without the busy device id, sign-in goes on")
    }

    @Test func oneNoisyClientDoesNotLockEveryoneOutOfSignIn() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.clientRateLimit = SandboxRateLimit(requests: 2, window: .seconds(60))
        })
        _ = try await harness.signUp("ana")
        _ = try await harness.signUp("ben")
        let login = { (username: String) in
            LoginBody(username: username, password: ServiceHarness.password, device: DeviceDescription(name: "phone", platform: "test"))
        }
        for _ in 0..<5 { #expect(await harness.call(.post, "/auth/login", json: login("ana")).status == .ok) }
        #expect(await harness.call(.post, "/auth/login", json: login("ben")).status == .ok)
    }

    @Test func refreshIsChargedToItsDevice() async throws {
        let harness = try await ServiceHarness.make(.testing {
            $0.deviceRateLimit = SandboxRateLimit(requests: 1, window: .seconds(60))
        })
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let next = try await harness.service.refresh(RefreshBody(refreshToken: ana.session.refreshToken))
        await expectAPIError(.rateLimited) { try await harness.service.refresh(RefreshBody(refreshToken: next.refreshToken)) }
        _ = try await harness.service.refresh(RefreshBody(refreshToken: ben.session.refreshToken))
        await harness.clock.advance(by: .seconds(60))
        _ = try await harness.service.refresh(RefreshBody(refreshToken: next.refreshToken))
    }

    @Test func aPushTokenMovesToTheDeviceThatRegistersIt() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let token = String(repeating: "b", count: 64)
        try await harness.service.setPushToken(ana.caller, PushTokenBody(token: token, environment: .production))
        try await harness.service.setPushToken(ben.caller, PushTokenBody(token: token, environment: .sandbox))

        let devices = try await harness.service.devices(ofUsers: [ana.id, ben.id])
        #expect(devices.first { $0.userId == ana.id }?.pushToken == nil)
        #expect(devices.first { $0.userId == ben.id }?.pushToken == token)
        #expect(devices.first { $0.userId == ben.id }?.pushEnvironment == .sandbox)

        try await harness.service.removePushToken(ben.caller)
        #expect(try await harness.service.devices(ofUsers: [ben.id]).first?.pushToken == nil)
    }

    @Test func pushableDevicesAreTheActiveDevicesWithAPushToken() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let ben = try await harness.signUp("ben")
        let cid = try await harness.signUp("cid")
        try await harness.service.setPushToken(ana.caller, PushTokenBody(token: String(repeating: "a", count: 64), environment: .production))
        try await harness.service.setPushToken(cid.caller, PushTokenBody(token: String(repeating: "c", count: 64), environment: .production))
        try await harness.service.removePushToken(cid.caller)

        let pushable = try await harness.service.pushableDevices(ofUsers: [ana.id, ben.id, cid.id])
        #expect(pushable.map(\.id) == [ana.session.deviceId])
    }

    @Test func theStoreKeepsEverythingInAFileAcrossReopening() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("sandbox.sqlite").path
        let clock = ManualClock()

        let first = ChatterService(store: try await SandboxStore.open(path: path), clock: clock, configuration: .testing())
        let session = try await first.register(RegisterBody(username: "ana", password: ServiceHarness.password, displayName: "Ana"))
        await first.store.close()

        let reopened = ChatterService(store: try await SandboxStore.open(path: path), clock: clock, configuration: .testing())
        #expect(try await reopened.authenticate(clientKey: "ck_sandbox", accessToken: session.accessToken).userId == session.user.id)
        await reopened.store.close()
    }
}
