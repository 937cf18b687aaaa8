/// Which end of a WebSocket connection this endpoint is; it decides the masking rules (RFC 6455 §5.1).
public enum WebSocketRole: Sendable, Hashable {
    /// Masks every frame it sends and requires unmasked frames from the server.
    case client
    /// Sends unmasked frames and requires every frame from the client to be masked.
    case server
}
