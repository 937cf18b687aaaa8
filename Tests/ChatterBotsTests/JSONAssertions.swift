import Foundation
import Testing

@testable import ChatterBots

/// Decodes `json` as `T`, re-encodes it, and expects the same JSON value (strings, and so timestamps,
/// compared byte for byte; key order and whitespace ignored).
@discardableResult
func expectRoundTrip<T: Codable>(
    _ type: T.Type, _ json: String, sourceLocation: SourceLocation = #_sourceLocation
) throws -> T {
    let value = try JSONDecoder().decode(T.self, from: Data(json.utf8))
    let reencoded = try JSONEncoder().encode(value)
    let expected = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8))
    let actual = try JSONDecoder().decode(JSONValue.self, from: reencoded)
    #expect(actual == expected, "re-encoded \(actual)\nexpected \(expected)", sourceLocation: sourceLocation)
    return value
}

func jsonValue(_ data: Data) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: data)
}

func jsonValue(_ text: String) throws -> JSONValue {
    try jsonValue(Data(text.utf8))
}

/// Sample objects in the shapes of `chatter-api.md`.
enum Fixture {
    static let ana = #"{ "id": "01JB8ZAAAAAAAAAAAAAAAAAAAA", "username": "ana_souza", "displayName": "Ana Souza", "avatarUrl": "https://cdn.example/a.png" }"#
    static let ben = #"{ "id": "01JC0BBBBBBBBBBBBBBBBBBBBB", "username": "ben_tan", "displayName": "Ben Tan", "avatarUrl": null }"#

    static func message(seq: Int, body: String = "See you at 8?") -> String {
        """
        { "id": "01JF00000000000000000000\(String(format: "%02d", seq))", "conversationId": "01JE…", "seq": \(seq),
          "senderId": "01JB8ZAAAAAAAAAAAAAAAAAAAA", "clientMessageId": "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55",
          "type": "text", "body": "\(body)", "mediaId": null, "replyToId": null,
          "reactions": [ { "emoji": "👍", "userIds": ["01JC0BBBBBBBBBBBBBBBBBBBBB"] } ],
          "createdAt": "2026-10-22T14:20:11.482Z", "editedAt": null, "deletedAt": null }
        """
    }

    static let deletedMessage = """
        { "id": "01JF0000000000000000000099", "conversationId": "01JE…", "seq": 43, "senderId": "01JB8ZAAAAAAAAAAAAAAAAAAAA",
          "clientMessageId": null, "type": "photo", "body": null, "mediaId": null, "replyToId": "01JF0000000000000000000041",
          "reactions": [], "createdAt": "2026-10-22T14:20:11.000Z", "editedAt": "2026-10-22T14:21:00.100Z",
          "deletedAt": "2026-10-22T14:22:59.999Z" }
        """

    static let conversation = """
        { "id": "01JE…", "type": "group", "title": "Dinner", "avatarUrl": null,
          "members": [ { "userId": "01JB8ZAAAAAAAAAAAAAAAAAAAA", "role": "owner", "lastDeliveredSeq": 42, "lastReadSeq": 40 },
                       { "userId": "01JC0BBBBBBBBBBBBBBBBBBBBB", "role": "member", "lastDeliveredSeq": 42, "lastReadSeq": 42 } ],
          "lastSeq": 42, "lastMessage": \(message(seq: 42)), "muted": false,
          "createdAt": "2026-10-01T08:00:00.000Z", "updatedAt": "2026-10-22T14:20:11.482Z" }
        """

    static let directConversation = """
        { "id": "01JG…", "type": "direct", "title": null, "avatarUrl": null, "members": [], "lastSeq": 0,
          "lastMessage": null, "muted": true, "createdAt": "2026-10-01T08:00:00.000Z", "updatedAt": "2026-10-01T08:00:00.000Z" }
        """

    static let friend = #"{ "user": \#(ben), "since": "2026-09-30T23:59:59.001Z" }"#
    static let friendRequest = #"{ "id": "01JD…", "fromUser": \#(ben), "toUser": \#(ana), "createdAt": "2026-10-22T14:03:11.482Z" }"#
}
