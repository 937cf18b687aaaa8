import ChatterBots
import ChatterSandbox
import Foundation
import Testing

/// A throwaway APNs key (EC P-256, PKCS#8 PEM) made for these tests.
let testAPNsKey = APNsKeyBody(
    teamId: "TEAM123456", keyId: "ABC123DEFG", bundleId: "com.yourname.chatter",
    privateKey: """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgjyaM4LRFWv0PcOeO
        p3o7dBR1uPknDEYw7fYdKLnv5tOhRANCAAT71Up4joSqUFqEtC06nQFlbkc+7x9W
        fKOzrrq3V27ktNLGvDZDxIXZh8msQLUuUw+PuDwBHqjl45xacq6DgzLA
        -----END PRIVATE KEY-----
        """)

/// A well-formed APNs device token: 64 hex characters.
func deviceToken(_ digit: Character) -> String { String(repeating: digit, count: 64) }

/// The JSON of an encodable value, for comparing payloads with the seed's literal JSON.
func json(_ value: some Encodable) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
}

@Suite("Push payloads and recorded pushes")
struct PushTests {
    /// A harness with an APNs key and Ana Souza, Ben Tan and Cai Lee as friends, each device with a push token.
    private func setUp() async throws -> (ServiceHarness, TestAccount, TestAccount, TestAccount) {
        let harness = try await ServiceHarness.make()
        try await harness.service.configureAPNs(testAPNsKey)
        let ana = try await harness.signUp("ana_souza", displayName: "Ana Souza")
        let ben = try await harness.signUp("ben_tan", displayName: "Ben Tan")
        let cai = try await harness.signUp("cai_lee", displayName: "Cai Lee")
        for (a, b) in [(ana, ben), (ana, cai), (ben, cai)] { try await harness.befriend(a, b) }
        for (account, digit) in [(ana, "a"), (ben, "b"), (cai, "c")] as [(TestAccount, Character)] {
            try await harness.service.setPushToken(account.caller, PushTokenBody(token: deviceToken(digit), environment: .production))
        }
        return (harness, ana, ben, cai)
    }

    private func post(_ harness: ServiceHarness, _ from: TestAccount, _ content: MessageContent, in id: Conversation.ID) async throws -> SandboxOutcome<SandboxCreation<Message>> {
        try await harness.service.postMessage(from.caller, id, MessagePostBody(clientMessageId: .random(), content: content))
    }

    @Test func aNewMessagePushCarriesEveryFieldOfTheSeed() async throws {
        let (harness, ana, ben, _) = try await setUp()
        let direct = try await harness.direct(ana, ben)
        let outcome = try await post(harness, ana, .text("See you at 8?"), in: direct.id)
        let message = outcome.value.value
        let trigger = try #require(outcome.deliveries.first?.pushTrigger)

        let pushes = try await harness.service.pushes(for: trigger, to: [ben.session.deviceId])

        #expect(pushes.count == 1)
        let push = try #require(pushes.first)
        #expect(push.deviceId == ben.session.deviceId)
        #expect(push.userId == ben.id)
        #expect(push.token == deviceToken("b"))
        #expect(push.environment == .production)
        #expect(push.status == .sent)
        #expect(push.reason == nil)
        #expect(try json(push.payload) == [
            "aps": [
                "alert": ["title": "Ana Souza", "body": "See you at 8?"],
                "sound": "default",
                "badge": 1,
                "thread-id": .string(direct.id.rawValue),
                "mutable-content": 1,
            ],
            "chatter": [
                "type": "message.new",
                "conversationId": .string(direct.id.rawValue),
                "messageId": .string(message.id.rawValue),
                "seq": 1,
                "senderId": .string(ana.id.rawValue),
            ],
        ])
        #expect(try await harness.service.recordedPushes() == pushes)
    }

    @Test func aGroupPushIsTitledSenderAtGroupTitle() async throws {
        let (harness, ana, ben, cai) = try await setUp()
        let group = try await harness.group(ana, "Lisbon Trip", [ben, cai])
        let trigger = try #require(try await post(harness, ben, .text("Tickets booked"), in: group.id).deliveries.first?.pushTrigger)

        let pushes = try await harness.service.pushes(for: trigger, to: [ana.session.deviceId, cai.session.deviceId])

        #expect(pushes.map(\.userId) == [ana.id, cai.id])
        #expect(pushes.allSatisfy { $0.payload.aps.alert == PushPayload.Alert(title: "Ben Tan @ Lisbon Trip", body: "Tickets booked") })
    }

    @Test(arguments: [
        (Message.Kind.photo, "image/jpeg", "📷 Photo"), (.voice, "audio/mp4", "🎤 Voice message"),
        (.video, "video/mp4", "🎥 Video"), (.document, "application/pdf", "📄 Document"),
    ])
    func aMediaPushNamesTheMediaKind(kind: Message.Kind, contentType: String, body: String) async throws {
        let (harness, ana, ben, _) = try await setUp()
        let direct = try await harness.direct(ana, ben)
        let media = try await harness.service.uploadMedia(ana.caller, bytes: [1, 2, 3], contentType: contentType)
        let trigger = try #require(try await post(harness, ana, .media(kind, media, caption: "caption"), in: direct.id).deliveries.first?.pushTrigger)

        let pushes = try await harness.service.pushes(for: trigger, to: [ben.session.deviceId])

        #expect(pushes.first?.payload.aps.alert == PushPayload.Alert(title: "Ana Souza", body: body))
    }

    @Test func theBadgeCountsUnreadMessagesFromOthersAcrossNonMutedConversations() async throws {
        let (harness, ana, ben, cai) = try await setUp()
        let withAna = try await harness.direct(ana, ben)
        let withCai = try await harness.direct(cai, ben)
        let muted = try await harness.group(ana, "Noisy", [ben, cai])
        try await harness.service.setMuted(ben.caller, muted.id, muted: true)
        for text in ["1", "2", "3"] { try await harness.send(ana, text, in: withAna.id) }
        _ = try await harness.service.markRead(ben.caller, conversationId: withAna.id, seq: 1)
        try await harness.send(ben, "my own message is not unread", in: withAna.id)
        for text in ["a", "b"] { try await harness.send(cai, text, in: muted.id) }
        let deleted = try await harness.send(cai, "gone", in: withCai.id)
        _ = try await harness.service.deleteMessage(cai.caller, withCai.id, deleted.id)
        let trigger = try #require(try await post(harness, cai, .text("hey"), in: withCai.id).deliveries.first?.pushTrigger)

        let pushes = try await harness.service.pushes(for: trigger, to: [ben.session.deviceId])

        // withAna: seq 2 and 3 unread (1 read, 4 is Ben's own); withCai: the new message (the deleted one does
        // not count); the muted group counts nothing.
        #expect(pushes.first?.payload.aps.badge == 3)
    }

    @Test func aMutedConversationPushesNothing() async throws {
        let (harness, ana, ben, _) = try await setUp()
        let direct = try await harness.direct(ana, ben)
        try await harness.service.setMuted(ben.caller, direct.id, muted: true)
        let trigger = try #require(try await post(harness, ana, .text("psst"), in: direct.id).deliveries.first?.pushTrigger)

        #expect(try await harness.service.pushes(for: trigger, to: [ben.session.deviceId]).isEmpty)
        #expect(try await harness.service.recordedPushes().isEmpty)
    }

    @Test func theSendersOwnDevicesAndNonMembersGetNoMessagePush() async throws {
        let (harness, ana, ben, cai) = try await setUp()
        let second = try await harness.service.login(
            LoginBody(username: "ana_souza", password: ana.password, device: DeviceDescription(name: "tablet", platform: "ios")))
        try await harness.service.setPushToken(
            SandboxCaller(userId: ana.id, deviceId: second.deviceId), PushTokenBody(token: deviceToken("d"), environment: .sandbox))
        let direct = try await harness.direct(ana, ben)
        let trigger = try #require(try await post(harness, ana, .text("hi"), in: direct.id).deliveries.first?.pushTrigger)

        let pushes = try await harness.service.pushes(for: trigger, to: [second.deviceId, cai.session.deviceId, ben.session.deviceId])

        #expect(pushes.map(\.deviceId) == [ben.session.deviceId])
    }

    @Test func devicesWithoutATokenOrRevokedGetNoPush() async throws {
        let (harness, ana, ben, cai) = try await setUp()
        try await harness.service.removePushToken(ben.caller)
        try await harness.service.logout(cai.caller)
        let group = try await harness.group(ana, "Trip", [ben, cai])
        let trigger = try #require(try await post(harness, ana, .text("hi"), in: group.id).deliveries.first?.pushTrigger)

        #expect(try await harness.service.pushes(for: trigger, to: [ben.session.deviceId, cai.session.deviceId]).isEmpty)
    }

    @Test func aFriendRequestPushCarriesEveryFieldOfTheSeed() async throws {
        let harness = try await ServiceHarness.make()
        try await harness.service.configureAPNs(testAPNsKey)
        let ana = try await harness.signUp("ana_souza", displayName: "Ana Souza")
        let ben = try await harness.signUp("ben_tan", displayName: "Ben Tan")
        try await harness.service.setPushToken(ana.caller, PushTokenBody(token: deviceToken("a"), environment: .production))
        let outcome = try await harness.service.sendFriendRequest(ben.caller, .userId(ana.id))
        let trigger = try #require(outcome.deliveries.first?.pushTrigger)

        let pushes = try await harness.service.pushes(for: trigger, to: [ana.session.deviceId, ben.session.deviceId])

        #expect(pushes.map(\.deviceId) == [ana.session.deviceId])
        #expect(try json(try #require(pushes.first).payload) == [
            "aps": ["alert": ["title": "New friend request", "body": "Ben Tan (@ben_tan) wants to be your friend"], "sound": "default"],
            "chatter": [
                "type": "friend_request.received", "requestId": .string(outcome.value.id.rawValue),
                "fromUserId": .string(ben.id.rawValue),
            ],
        ])
    }

    @Test func anAcceptedRequestPushGoesToTheSenderWithEveryFieldOfTheSeed() async throws {
        let harness = try await ServiceHarness.make()
        try await harness.service.configureAPNs(testAPNsKey)
        let ana = try await harness.signUp("ana_souza", displayName: "Ana Souza")
        let ben = try await harness.signUp("ben_tan", displayName: "Ben Tan")
        for (account, digit) in [(ana, "a"), (ben, "b")] as [(TestAccount, Character)] {
            try await harness.service.setPushToken(account.caller, PushTokenBody(token: deviceToken(digit), environment: .production))
        }
        let request = try await harness.service.sendFriendRequest(ana.caller, .userId(ben.id)).value
        let accepted = try await harness.service.acceptFriendRequest(ben.caller, request.id)
        let triggers = accepted.deliveries.compactMap(\.pushTrigger)
        #expect(triggers.count == 1)

        let pushes = try await harness.service.pushes(for: try #require(triggers.first), to: [ana.session.deviceId, ben.session.deviceId])

        #expect(pushes.map(\.deviceId) == [ana.session.deviceId])
        #expect(try json(try #require(pushes.first).payload) == [
            "aps": ["alert": ["title": "Ben Tan", "body": "accepted your friend request"], "sound": "default"],
            "chatter": [
                "type": "friend_request.accepted", "requestId": .string(request.id.rawValue),
                "friendUserId": .string(ben.id.rawValue),
            ],
        ])
    }

    @Test func withoutAnAPNsKeyOrWithAMalformedTokenThePushFailsWithAPNsReasons() async throws {
        let harness = try await ServiceHarness.make()
        let accounts = try await harness.friends("ana", "ben", "cai")
        try await harness.service.setPushToken(accounts[1].caller, PushTokenBody(token: deviceToken("b"), environment: .production))
        try await harness.service.setPushToken(accounts[2].caller, PushTokenBody(token: "a1b2c3", environment: .production))
        let group = try await harness.group(accounts[0], "Trip", [accounts[1], accounts[2]])
        let devices = [accounts[1].session.deviceId, accounts[2].session.deviceId]

        let first = try #require(try await post(harness, accounts[0], .text("1"), in: group.id).deliveries.first?.pushTrigger)
        let unconfigured = try await harness.service.pushes(for: first, to: devices)
        #expect(unconfigured.map(\.reason) == ["MissingProviderToken", "MissingProviderToken"])
        #expect(unconfigured.allSatisfy { $0.status == .failed })

        try await harness.service.configureAPNs(testAPNsKey)
        let second = try #require(try await post(harness, accounts[0], .text("2"), in: group.id).deliveries.first?.pushTrigger)
        let configured = try await harness.service.pushes(for: second, to: devices)
        #expect(configured.map(\.status) == [.sent, .failed])
        #expect(configured.map(\.reason) == [nil, "BadDeviceToken"])
    }

    @Test func recordedPushesAreKeptInOrderAndFilteredByUser() async throws {
        let (harness, ana, ben, cai) = try await setUp()
        let group = try await harness.group(ana, "Trip", [ben, cai])
        for text in ["one", "two"] {
            let trigger = try #require(try await post(harness, ana, .text(text), in: group.id).deliveries.first?.pushTrigger)
            _ = try await harness.service.pushes(for: trigger, to: [ben.session.deviceId, cai.session.deviceId])
        }

        let all = try await harness.service.recordedPushes()
        #expect(all.map(\.sequence) == all.map(\.sequence).sorted())
        #expect(all.map(\.payload.aps.alert.body) == ["one", "one", "two", "two"])
        #expect(try await harness.service.recordedPushes(for: ben.id).map(\.payload.aps.badge) == [1, 2])
    }

    @Test func aVeryLongBodyIsCutToFitAnAPNsPayload() {
        let message = Message(
            id: "01M", conversationId: "01C", seq: 1, senderId: "01U", clientMessageId: nil, kind: .text,
            body: String(repeating: "€", count: 4096), createdAt: Timestamp(millisecondsSince1970: 0))
        let body = PushComposer.body(of: message)
        #expect(body.hasSuffix("…"))
        #expect(body.utf8.count <= PushComposer.maxAlertBodyBytes)
        #expect(PushComposer.body(of: Message(
            id: "01M", conversationId: "01C", seq: 1, senderId: "01U", clientMessageId: nil, kind: .text, body: "short",
            createdAt: Timestamp(millisecondsSince1970: 0))) == "short")
    }

    @Test func aDeviceTokenIsWellFormedOnlyAs64HexCharacters() {
        #expect(PushComposer.isWellFormedDeviceToken(deviceToken("f")))
        #expect(PushComposer.isWellFormedDeviceToken(String(repeating: "A1", count: 32)))
        #expect(!PushComposer.isWellFormedDeviceToken(String(repeating: "a", count: 63)))
        #expect(!PushComposer.isWellFormedDeviceToken(String(repeating: "g", count: 64)))
        #expect(!PushComposer.isWellFormedDeviceToken("a1b2c3"))
    }
}
