import Foundation
import Testing

@testable import ChatterBots

@Suite("Wire model objects of chatter-api.md")
struct WireModelTests {
    @Test func userRoundTripsWithNullAvatar() throws {
        let ben = try expectRoundTrip(User.self, Fixture.ben)
        #expect(ben.id == User.ID("01JC0BBBBBBBBBBBBBBBBBBBBB"))
        #expect(ben.avatarUrl == nil)
        try expectRoundTrip(User.self, Fixture.ana)
    }

    @Test func currentUserCarriesPrivacyAndItsPublicProfile() throws {
        let me = try expectRoundTrip(
            CurrentUser.self,
            #"{ "id": "01JB…", "username": "ana_souza", "displayName": "Ana", "avatarUrl": null, "privacy": { "lastSeen": "friends" } }"#)
        #expect(me.privacy.lastSeen == .friends)
        #expect(me.user == User(id: "01JB…", username: "ana_souza", displayName: "Ana"))
    }

    @Test func unknownEnumValuesDecodeAndReencodeUnchanged() throws {
        let me = try expectRoundTrip(
            CurrentUser.self,
            #"{ "id": "u", "username": "a", "displayName": "A", "avatarUrl": null, "privacy": { "lastSeen": "contacts" } }"#)
        #expect(me.privacy.lastSeen == .unrecognized("contacts"))
        let sticker = Fixture.message(seq: 1).replacingOccurrences(of: #""type": "text""#, with: #""type": "sticker""#)
        #expect(try expectRoundTrip(Message.self, sticker).kind == .unrecognized("sticker"))
    }

    @Test func friendAndFriendRequestRoundTrip() throws {
        let friend = try expectRoundTrip(Friend.self, Fixture.friend)
        #expect(friend.since.iso8601 == "2026-09-30T23:59:59.001Z")
        let request = try expectRoundTrip(FriendRequest.self, Fixture.friendRequest)
        #expect(request.fromUser.username == "ben_tan")
        #expect(request.toUser.username == "ana_souza")
    }

    @Test func messageRoundTripsWithReactionsAndNulls() throws {
        let message = try expectRoundTrip(Message.self, Fixture.message(seq: 42))
        #expect(message.kind == .text)
        #expect(message.reactions == [Message.Reaction(emoji: "👍", userIds: ["01JC0BBBBBBBBBBBBBBBBBBBBB"])])
        #expect(message.createdAt.iso8601 == "2026-10-22T14:20:11.482Z")
    }

    @Test func deletedMessageHasNoBodyAndIsDeleted() throws {
        let message = try expectRoundTrip(Message.self, Fixture.deletedMessage)
        #expect(message.isDeleted)
        #expect(message.body == nil && message.mediaId == nil && message.clientMessageId == nil)
        #expect(message.kind == .photo)
    }

    @Test func everyMessageKindKeepsItsWireName() throws {
        for name in ["text", "photo", "voice", "video", "document", "system"] {
            let kind = Message.Kind(rawValue: name)
            #expect(kind.rawValue == name)
            if case .unrecognized = kind { Issue.record("\(name) is a documented message type") }
        }
    }

    @Test func conversationsRoundTripWithMembersAndLastMessage() throws {
        let group = try expectRoundTrip(Conversation.self, Fixture.conversation)
        #expect(group.kind == .group)
        #expect(group.members.map(\.role) == [.owner, .member])
        #expect(group.lastMessage?.seq == 42)
        let direct = try expectRoundTrip(Conversation.self, Fixture.directConversation)
        #expect(direct.kind == .direct && direct.title == nil && direct.lastMessage == nil && direct.muted)
    }

    @Test func sessionRoundTrips() throws {
        let session = try expectRoundTrip(
            AuthSession.self,
            #"{ "accessToken": "at1", "refreshToken": "rt1", "expiresIn": 3600, "deviceId": "01JB8ZD…", "user": \#(Fixture.ana) }"#)
        #expect(session.tokens == SessionTokens(accessToken: "at1", refreshToken: "rt1"))
        #expect(session.deviceId == Device.ID("01JB8ZD…"))
    }

    @Test func errorBodyKeepsUnknownCodesAndDetails() throws {
        let error = try expectRoundTrip(
            ChatterErrorBody.self,
            #"{ "code": "VALIDATION_FAILED", "message": "body is too long", "details": { "field": "body", "max": 4096 } }"#)
        #expect(error.code == .validationFailed)
        #expect(error.details?["field"] == "body")
        let future = try expectRoundTrip(ChatterErrorBody.self, #"{ "code": "ACCOUNT_FROZEN", "message": "Frozen." }"#)
        #expect(future.code == ChatterErrorCode(rawValue: "ACCOUNT_FROZEN"))
        #expect(future.details == nil)
    }

    @Test func documentedErrorCodesHaveTheirStatuses() {
        let statuses = ChatterErrorCode.documented.map { "\($0.rawValue)=\($0.documentedHTTPStatus ?? 0)" }
        #expect(statuses == [
            "INVALID_CLIENT_KEY=401", "UNAUTHORIZED=401", "INVALID_CREDENTIALS=401", "INVALID_REFRESH_TOKEN=401",
            "FORBIDDEN=403", "NOT_FRIENDS=403", "NOT_FOUND=404", "ALREADY_FRIENDS=409", "REQUEST_EXISTS=409",
            "VALIDATION_FAILED=400", "PAYLOAD_TOO_LARGE=413", "RATE_LIMITED=429", "INTERNAL=500",
        ])
        #expect(ChatterErrorCode.rateLimited.isTransient && ChatterErrorCode.internalError.isTransient)
        #expect(!ChatterErrorCode.notFriends.isTransient && !ChatterErrorCode.validationFailed.isTransient)
    }

    @Test func listResponsesRoundTrip() throws {
        try expectRoundTrip(UserList.self, #"{ "users": [\#(Fixture.ben)] }"#)
        try expectRoundTrip(FriendList.self, #"{ "friends": [\#(Fixture.friend)] }"#)
        try expectRoundTrip(FriendRequestList.self, #"{ "incoming": [\#(Fixture.friendRequest)], "outgoing": [] }"#)
        try expectRoundTrip(ConversationList.self, #"{ "conversations": [\#(Fixture.conversation), \#(Fixture.directConversation)] }"#)
        try expectRoundTrip(MessagePage.self, #"{ "messages": [\#(Fixture.message(seq: 1)), \#(Fixture.message(seq: 2))], "hasMore": true }"#)
        try expectRoundTrip(MediaUpload.self, #"{ "mediaId": "01JM…", "url": "https://cdn.example/m/01JM" }"#)
        try expectRoundTrip(FriendRequestAccepted.self, #"{ "requestId": "01JD…", "friend": \#(Fixture.friend) }"#)
    }

    @Test func requestBodiesEncodeAsTheContractSays() throws {
        try expectRoundTrip(RegisterBody.self, #"{ "username": "remind_bot", "password": "pw", "displayName": "Reminder" }"#)
        try expectRoundTrip(LoginBody.self, #"{ "username": "u", "password": "p", "deviceId": "01JB8ZD…", "device": { "name": "bot", "platform": "linux" } }"#)
        try expectRoundTrip(LoginBody.self, #"{ "username": "u", "password": "p", "device": { "name": "bot", "platform": "linux" } }"#)
        try expectRoundTrip(RefreshBody.self, #"{ "refreshToken": "rt" }"#)
        try expectRoundTrip(PushTokenBody.self, #"{ "token": "a1b2c3", "environment": "production" }"#)
        try expectRoundTrip(ProfileUpdateBody.self, #"{ "displayName": "New" }"#)
        try expectRoundTrip(ProfileUpdateBody.self, #"{ "privacy": { "lastSeen": "nobody" } }"#)
        #expect(try expectRoundTrip(FriendRequestBody.self, #"{ "userId": "01JC…" }"#) == .userId("01JC…"))
        #expect(try expectRoundTrip(FriendRequestBody.self, #"{ "username": "ben_tan" }"#) == .username("ben_tan"))
        #expect(try expectRoundTrip(NewConversationBody.self, #"{ "type": "direct", "userId": "01JC…" }"#) == .direct(userId: "01JC…"))
        try expectRoundTrip(NewConversationBody.self, #"{ "type": "group", "title": "Dinner", "memberIds": ["a", "b"] }"#)
        try expectRoundTrip(ConversationUpdateBody.self, #"{ "title": "Lunch" }"#)
        try expectRoundTrip(MembersBody.self, #"{ "userIds": ["a"] }"#)
        try expectRoundTrip(ConversationSettingsBody.self, #"{ "muted": true }"#)
        let post = try expectRoundTrip(
            MessagePostBody.self,
            #"{ "clientMessageId": "c1", "type": "text", "body": "hi", "mediaId": null, "replyToId": null }"#)
        #expect(post.content == .text("hi"))
        try expectRoundTrip(MessageEditBody.self, #"{ "body": "edited" }"#)
        try expectRoundTrip(TestPushBody.self, #"{"userId":"01JB…"}"#)
    }

    @Test func patchBodiesOmitWhatTheyDoNotChange() throws {
        #expect(try jsonValue(JSONEncoder().encode(ConversationUpdateBody(title: "Lunch"))) == ["title": "Lunch"])
        #expect(try jsonValue(JSONEncoder().encode(ProfileUpdateBody())) == [:])
    }

    @Test func absentOptionalsAreNullUnlessTheContractMakesTheKeyOptional() throws {
        func object(_ value: some Encodable) throws -> [String: JSONValue] {
            guard case .object(let members) = try jsonValue(JSONEncoder().encode(value)) else { return [:] }
            return members
        }
        let at = Timestamp(millisecondsSince1970: 0)
        // Written as null: optionals the contract does not mark `?`.
        let nullKeys: [(String, [String: JSONValue])] = [
            ("avatarUrl", try object(User(id: "U1", username: "u", displayName: "U"))),
            ("title", try object(Conversation(id: "C1", kind: .direct, members: [], lastSeq: 0, createdAt: at, updatedAt: at))),
            ("lastMessage", try object(Conversation(id: "C1", kind: .direct, members: [], lastSeq: 0, createdAt: at, updatedAt: at))),
            ("mediaId", try object(MessageContent.text("hi"))),
            ("replyToId", try object(MessagePostBody(clientMessageId: "c1", content: .text("hi")))),
            ("deletedAt", try object(Message(id: "M1", conversationId: "C1", seq: 1, senderId: "U1", clientMessageId: nil, kind: .text, body: "b", createdAt: at))),
            ("lastSeenAt", try object(Presence(userId: "U1", isOnline: true))),
            ("teamId", try object(APNsConfiguration(configured: false))),
        ]
        for (key, members) in nullKeys {
            #expect(members[key] == .null, "\(key) is written as null")
        }
        // Omitted: keys the contract marks `?` or its examples leave out, and PATCH fields.
        let omittedKeys: [(String, [String: JSONValue])] = [
            ("deviceId", try object(LoginBody(username: "u", password: "p", device: DeviceDescription(name: "b", platform: "linux")))),
            ("limitPerConversation", try object(SyncRequest(conversations: [:]))),
            ("details", try object(ChatterErrorBody(code: .notFound, message: "m"))),
            ("reason", try object(TestPushReport.Result(deviceId: "D1", status: .sent))),
            ("badge", try object(PushPayload.APS(alert: .init(title: "t", body: "b")))),
            ("title", try object(ConversationUpdateBody(avatarUrl: "https://cdn.example/a.png"))),
            ("privacy", try object(ProfileUpdateBody(displayName: "D"))),
        ]
        for (key, members) in omittedKeys {
            #expect(!members.keys.contains(key), "\(key) is omitted")
        }
        #expect(try jsonValue(ClientFrame(.ping).jsonData()) == ["type": "ping", "data": [:]], "a frame without id has no id key")
    }

    @Test func decodingTakesAMissingKeyAndNullAlike() throws {
        let missing = try JSONDecoder().decode(User.self, from: Data(#"{"id":"U1","username":"u","displayName":"U"}"#.utf8))
        let null = try JSONDecoder().decode(User.self, from: Data(#"{"id":"U1","username":"u","displayName":"U","avatarUrl":null}"#.utf8))
        #expect(missing == null && missing.avatarUrl == nil)
        let login = try JSONDecoder().decode(LoginBody.self, from: Data(#"{"username":"u","password":"p","deviceId":null,"device":{"name":"b","platform":"l"}}"#.utf8))
        #expect(login.deviceId == nil)
    }

    @Test func identifierKeyedDictionariesEncodeAsObjects() throws {
        let data = try JSONEncoder().encode([Conversation.ID("01JE…"): 40])
        #expect(try jsonValue(data) == ["01JE…": 40])
    }
}

@Suite("Push shapes of push-notifications.txt")
struct PushModelTests {
    @Test func apnsConfigurationRoundTrips() throws {
        let configuration = try expectRoundTrip(
            APNsConfiguration.self, #"{"configured":true,"teamId":"TEAM123456","keyId":"ABC123DEFG","bundleId":"com.yourname.chatter"}"#)
        #expect(configuration.configured && configuration.keyId == "ABC123DEFG")
        try expectRoundTrip(APNsConfiguration.self, #"{"configured":false,"teamId":null,"keyId":null,"bundleId":null}"#)
        try expectRoundTrip(
            APNsKeyBody.self,
            #"{"teamId":"TEAM123456","keyId":"ABC123DEFG","bundleId":"com.yourname.chatter","privateKey":"-----BEGIN PRIVATE KEY-----\nMIG\n-----END PRIVATE KEY-----"}"#)
    }

    @Test func testPushResultsRoundTrip() throws {
        let report = try expectRoundTrip(TestPushReport.self, #"{"sent":1,"failed":0,"results":[{"deviceId":"01JB8ZD…","status":"sent"}]}"#)
        #expect(report.results == [.init(deviceId: "01JB8ZD…", status: .sent)])
        let failed = try expectRoundTrip(
            TestPushReport.self, #"{"sent":0,"failed":1,"results":[{"deviceId":"01JB8ZD…","status":"failed","reason":"BadDeviceToken"}]}"#)
        #expect(failed.results.first?.reason == "BadDeviceToken")
    }

    @Test func newMessagePushRoundTrips() throws {
        let push = try expectRoundTrip(
            PushPayload.self,
            """
            {
              "aps": {
                "alert": { "title": "Ana Souza", "body": "See you at 8?" },
                "sound": "default",
                "badge": 3,
                "thread-id": "01JE…",
                "mutable-content": 1
              },
              "chatter": {
                "type": "message.new",
                "conversationId": "01JE…",
                "messageId": "01JF…",
                "seq": 42,
                "senderId": "01JB…"
              }
            }
            """)
        #expect(push.aps.badge == 3 && push.aps.threadId == "01JE…" && push.aps.mutableContent == 1)
        #expect(push.chatter == .messageNew(conversationId: "01JE…", messageId: "01JF…", seq: 42, senderId: "01JB…"))
    }

    @Test func friendRequestPushesRoundTrip() throws {
        let received = try expectRoundTrip(
            PushPayload.self,
            """
            {
              "aps": { "alert": { "title": "New friend request", "body": "Ben Tan (@ben_tan) wants to be your friend" }, "sound": "default" },
              "chatter": { "type": "friend_request.received", "requestId": "01JD…", "fromUserId": "01JC…" }
            }
            """)
        #expect(received.chatter == .friendRequestReceived(requestId: "01JD…", fromUserId: "01JC…"))
        #expect(received.aps.badge == nil)
        let accepted = try expectRoundTrip(
            PushPayload.self,
            """
            {
              "aps": { "alert": { "title": "Ben Tan", "body": "accepted your friend request" }, "sound": "default" },
              "chatter": { "type": "friend_request.accepted", "requestId": "01JD…", "friendUserId": "01JC…" }
            }
            """)
        #expect(accepted.chatter == .friendRequestAccepted(requestId: "01JD…", friendUserId: "01JC…"))
    }

    @Test func unknownPushTypeKeepsItsFields() throws {
        let push = try expectRoundTrip(
            PushPayload.self,
            #"{ "aps": { "alert": { "title": "t", "body": "b" } }, "chatter": { "type": "call.missed", "callId": "x" } }"#)
        #expect(push.chatter == .unknown(type: "call.missed", fields: ["type": "call.missed", "callId": "x"]))
    }
}

@Suite("JSONValue numbers")
struct JSONValueNumberTests {
    @Test(arguments: ["9007199254740993", "9223372036854775807", "-9223372036854775808", "0", "-42"])
    func integersRoundTripExactly(text: String) throws {
        let value = try jsonValue("[\(text)]")
        #expect(value[0] == .integer(try #require(Int64(text))))
        #expect(String(decoding: try JSONEncoder().encode(value), as: UTF8.self) == "[\(text)]")
    }

    @Test func aPayloadWithALargeIntegerSurvivesTheTripThroughJSONValue() throws {
        struct Payload: Codable, Equatable { var counter: Int64 }
        let payload = Payload(counter: (1 << 53) + 1)  // the first integer a Double cannot hold
        #expect(try JSONValue(encoding: payload).decode(as: Payload.self) == payload)
    }

    @Test func anIntegralNumberBeyondTwoToTheFiftyThirdKeepsItsValueThroughAnEncodeAndADecode() throws {
        let value = JSONValue.array([.number(8.888888888888888e+17)])
        let again = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
        #expect(again == value)
        #expect(again[0]?.integerValue == Int64(exactly: 8.888888888888888e+17))
    }

    @Test func fractionsAndIntegersBeyondSixtyFourBitsAreDoubles() throws {
        #expect(try jsonValue("[1.5, 18446744073709551616]") == .array([.number(1.5), .number(0x1p64)]))
    }

    @Test func numbersCompareAndHashByValue() {
        #expect(JSONValue.integer(5) == .number(5))
        #expect(JSONValue.integer((1 << 53) + 1) != .number(Double(1 << 53)))
        #expect(Set<JSONValue>([.integer(5), .number(5), .number(5.5)]).count == 2)
        #expect(JSONValue(integerLiteral: 7).integerValue == 7 && JSONValue.number(7).integerValue == 7)
        #expect(JSONValue.number(7.5).integerValue == nil && JSONValue.integer(3).doubleValue == 3)
    }
}
