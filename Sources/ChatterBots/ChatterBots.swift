// ChatterBots: what a bot author imports.
//
// - Model/: the Chatter wire objects (User, Conversation, Message, …), typed identifiers, timestamps.
//   Absent values, one rule for every wire type (request bodies, objects, frames): chatter-api.md asks for
//   `null` for absent optionals, so an optional with no value is written as `null` (`avatarUrl`, `title`,
//   `lastMessage`, `mediaId`, `lastSeenAt`, …). The key is omitted instead only where the contract makes the
//   key itself optional: keys it marks `?` (`deviceId?` of login, `reason?` of a test-push result, an error's
//   optional `details`), keys the seeds' examples leave out (`limitPerConversation` of `sync.request`, the APNs
//   `aps` keys, a frame's `id` and `replyTo`), and every field of a PATCH body, where a missing key means
//   "leave unchanged". Decoding takes a missing key and `null` alike for every optional.
// - Realtime/: the WebSocket frame envelope and every client and server event.
// - REST/: the endpoint table (`ChatterEndpoint`, `ChatterAPI`) and `ChatterRESTClient`.
// - Bot/: the `Bot` handler protocol, `BotContext`, and `RecordingBotContext` for unit tests.
@_exported import Foundation
