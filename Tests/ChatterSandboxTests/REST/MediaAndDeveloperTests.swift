import ChatterBots
import ChatterSandbox
import Foundation
import Testing
import WebSocket

@Suite("Media uploads and developer endpoints")
struct MediaAndDeveloperTests {
    @Test func anUploadAnswers201WithAnIdAndAURLThatServesTheFileToItsUploader() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let bytes: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]

        let response = await harness.call(.post, "/media", as: ana, body: bytes, headers: ["Content-Type": "image/png"])

        #expect(response.status == .created)
        let upload = try decode(MediaUpload.self, response)
        #expect(upload.url == "http://127.0.0.1:8080/v1/media/\(upload.mediaId)")
        let file = await harness.call(.get, "/media/\(upload.mediaId)", as: ana)
        #expect(file.status == .ok)
        #expect(file.body == bytes)
        #expect(file.headers.first(name: "Content-Type") == "image/png")
        expectErrorResponse(await harness.call(.get, "/media/01NOSUCHMEDIA", as: ana), .notFound)
    }

    @Test func aFileNeedsCredentialsAndIsServedOnlyToMembersOfAConversationCarryingIt() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "eve")
        let (ana, ben, eve) = (accounts[0], accounts[1], accounts[2])
        let direct = try await harness.direct(ana, ben)
        let photo = try await harness.service.uploadMedia(ana.caller, bytes: [0xff, 0xd8], contentType: "image/jpeg")
        let path = "/media/\(photo)"

        expectErrorResponse(await harness.call(.get, path, clientKey: nil), .invalidClientKey)
        expectErrorResponse(await harness.call(.get, path), .unauthorized)
        expectErrorResponse(await harness.call(.get, path, as: ben), .notFound, "not sent yet: only its uploader sees it")

        let message = try await harness.service.postMessage(
            ana.caller, direct.id, MessagePostBody(clientMessageId: "p", content: .media(.photo, photo))).value.value
        #expect(await harness.call(.get, path, as: ben).body == [0xff, 0xd8])
        expectErrorResponse(await harness.call(.get, path, as: eve), .notFound, "a friend outside the conversation")

        _ = try await harness.service.deleteMessage(ana.caller, direct.id, message.id)
        expectErrorResponse(await harness.call(.get, path, as: ben), .notFound, "deleted for everyone: the message carries it no more")
        #expect(await harness.call(.get, path, as: ana).status == .ok)
    }

    @Test(arguments: ["image/jpeg", "image/heic", "audio/mp4", "audio/ogg; codecs=opus", "video/mp4", "application/pdf"])
    func theAcceptedMediaTypesUpload(contentType: String) async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        #expect(await harness.call(.post, "/media", as: ana, body: [1], headers: ["Content-Type": contentType]).status == .created)
    }

    @Test(arguments: ["text/plain", "application/json", "application/octet-stream", "image", ""])
    func otherMediaTypesAreRefused(contentType: String) async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let response = await harness.call(.post, "/media", as: ana, body: [1], headers: ["Content-Type": contentType])
        expectErrorResponse(response, .validationFailed, field: "Content-Type")
    }

    @Test func anUploadIsOneByteToTenMebibytes() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        let limit = 10 << 20
        let largest = await harness.call(.post, "/media", as: ana, body: [UInt8](repeating: 7, count: limit), headers: ["Content-Type": "video/mp4"])
        #expect(largest.status == .created)
        let tooLarge = await harness.call(
            .post, "/media", as: ana, body: [UInt8](repeating: 7, count: limit + 1), headers: ["Content-Type": "video/mp4"])
        expectErrorResponse(tooLarge, .payloadTooLarge)
        expectErrorResponse(await harness.call(.post, "/media", as: ana, headers: ["Content-Type": "video/mp4"]), .validationFailed, field: "body")
    }

    private func developer(_ harness: ServiceHarness, _ method: WebSocket.HTTPMethod, _ path: String, json: (any Encodable)? = nil, secret: String = "cs_sandbox") async -> HTTPResponse {
        await harness.call(method, path, json: json, headers: ["X-Client-Secret": secret])
    }

    @Test func theAPNsKeyIsRegisteredAndReportedWithoutThePrivateKey() async throws {
        let harness = try await ServiceHarness.make()
        let before = try decode(JSONValue.self, await developer(harness, .get, "/developer/apns"))
        #expect(before == ["configured": false, "teamId": nil, "keyId": nil, "bundleId": nil])

        #expect(await developer(harness, .put, "/developer/apns", json: testAPNsKey).status == .noContent)

        let after = try decode(JSONValue.self, await developer(harness, .get, "/developer/apns"))
        #expect(after == ["configured": true, "teamId": "TEAM123456", "keyId": "ABC123DEFG", "bundleId": "com.yourname.chatter"])
    }

    @Test func anAPNsKeyThatIsNotAnECPrivateKeyOrBadIdentifiersAreRefused() async throws {
        let harness = try await ServiceHarness.make()
        var ed25519 = testAPNsKey
        ed25519.privateKey = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIGU4kyo47rFn6oqBQUxk0trzVToW31T8czVD5PD+bMdw\n-----END PRIVATE KEY-----\n"
        expectErrorResponse(await developer(harness, .put, "/developer/apns", json: ed25519), .validationFailed, field: "privateKey")
        var garbage = testAPNsKey
        garbage.privateKey = "not a key"
        expectErrorResponse(await developer(harness, .put, "/developer/apns", json: garbage), .validationFailed, field: "privateKey")
        var team = testAPNsKey
        team.teamId = "TEAM"
        expectErrorResponse(await developer(harness, .put, "/developer/apns", json: team), .validationFailed, field: "teamId")
        var bundle = testAPNsKey
        bundle.bundleId = "chatter"
        expectErrorResponse(await developer(harness, .put, "/developer/apns", json: bundle), .validationFailed, field: "bundleId")
        #expect(try await !harness.service.apnsConfiguration().configured)
    }

    @Test func anEncryptedKeyIsRefusedAtOnceWithoutAskingForAPassword() async throws {
        let harness = try await ServiceHarness.make()
        var encrypted = testAPNsKey
        encrypted.privateKey = """
            -----BEGIN ENCRYPTED PRIVATE KEY-----
            MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAiGQOFzN6lUuQICCAAw
            DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEEUauqJVelrL0RHZG5GeuVYEgZCV
            vdLyfPoqffeeRxNNZZZpyJJ65xgV8IqlwFGWmZ3gg68T2QGqkTL1BERjcshQ4qdN
            yQmvh0UXAy14BGjajppL8aPEaLfEDzAcafHorAPE7rMvtIwAr33HObgbKORyiBhe
            2Gf5rOe1e1YDf5hGPfwE38OftLw8IGS05g6T9qcus7SOo3U04XwZQ0XRUBxV2U0=
            -----END ENCRYPTED PRIVATE KEY-----
            """

        let error = expectErrorResponse(
            await developer(harness, .put, "/developer/apns", json: encrypted), .validationFailed, field: "privateKey")

        #expect(error?.message.contains("encrypted") == true, "\(error?.message ?? "")")
        #expect(try await !harness.service.apnsConfiguration().configured)
    }

    @Test func developerEndpointsNeedTheClientSecretNotABearerToken() async throws {
        let harness = try await ServiceHarness.make()
        let ana = try await harness.signUp("ana")
        expectErrorResponse(await developer(harness, .get, "/developer/apns", secret: "cs_wrong"), .unauthorized)
        expectErrorResponse(await harness.call(.get, "/developer/apns", as: ana), .unauthorized)
        expectErrorResponse(await harness.call(.get, "/developer/apns", headers: ["X-Client-Secret": "cs_sandbox"], clientKey: "ck_x"), .invalidClientKey)
    }

    @Test func aTestPushReportsEachDeviceWithBadDeviceTokenForAMalformedToken() async throws {
        let harness = try await ServiceHarness.make()
        #expect(await developer(harness, .put, "/developer/apns", json: testAPNsKey).status == .noContent)
        let ana = try await harness.signUp("ana")
        let phone = try await harness.service.login(LoginBody(username: "ana", password: ana.password, device: DeviceDescription(name: "phone", platform: "ios")))
        _ = try await harness.service.login(LoginBody(username: "ana", password: ana.password, device: DeviceDescription(name: "no token", platform: "ios")))
        try await harness.service.setPushToken(ana.caller, PushTokenBody(token: deviceToken("a"), environment: .production))
        try await harness.service.setPushToken(
            SandboxCaller(userId: ana.id, deviceId: phone.deviceId), PushTokenBody(token: "a1b2c3", environment: .sandbox))

        let response = await developer(harness, .post, "/developer/test-push", json: TestPushBody(userId: ana.id))

        #expect(response.status == .ok)
        #expect(try decode(JSONValue.self, response) == [
            "sent": 1, "failed": 1,
            "results": [
                ["deviceId": .string(ana.session.deviceId.rawValue), "status": "sent"],
                ["deviceId": .string(phone.deviceId.rawValue), "status": "failed", "reason": "BadDeviceToken"],
            ],
        ])
        #expect(try await harness.service.recordedPushes(for: ana.id).map(\.status) == [.sent, .failed])
        expectErrorResponse(await developer(harness, .post, "/developer/test-push", json: TestPushBody(userId: "01NOBODY")), .notFound)
    }
}
