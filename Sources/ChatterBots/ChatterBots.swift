// ChatterBots: what a bot author imports.
//
// - Model/: the Chatter wire objects (User, Conversation, Message, …), typed identifiers, timestamps.
// - Realtime/: the WebSocket frame envelope and every client and server event.
// - REST/: the endpoint table (`ChatterEndpoint`, `ChatterAPI`) and `ChatterRESTClient`.
// - Bot/: the `Bot` handler protocol, `BotContext`, and `RecordingBotContext` for unit tests.
@_exported import Foundation
