import WebSocket

// The application close codes of the realtime protocol (`seeds/realtime-websocket.txt`, "Close codes"), defined
// once so that the client's reaction and the sandbox's closes cannot drift apart.
extension WebSocketCloseCode {
    /// 4001: the access token is invalid or expired. Refresh the token, then reconnect.
    public static let chatterTokenInvalid = WebSocketCloseCode(4001)
    /// 4002: the client key is invalid. Do not reconnect: a configuration error.
    public static let chatterClientKeyInvalid = WebSocketCloseCode(4002)
    /// 4003: the session was revoked (logout, account deleted). Clear local data and sign in afresh.
    public static let chatterSessionRevoked = WebSocketCloseCode(4003)
    /// 4008: rate limited. Reconnect after the number of seconds in the close reason.
    public static let chatterRateLimited = WebSocketCloseCode(4008)
}
