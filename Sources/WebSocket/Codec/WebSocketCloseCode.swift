/// The status code of a close frame (RFC 6455 §7.4), kept as its raw value so application codes (3000-4999) round-trip.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code as sent on the wire.
    public var rawValue: UInt16

    /// Creates a code from its numeric value.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Creates a code from its numeric value.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the endpoint is going away (server shutdown, page navigation).
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: the peer broke the protocol.
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1003: the endpoint cannot accept this kind of data.
    public static let unsupportedData = WebSocketCloseCode(1003)
    /// 1005: reported locally when the close frame carried no code; never sent.
    public static let noStatusReceived = WebSocketCloseCode(1005)
    /// 1006: reported locally when the transport closed without a close frame; never sent.
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1007: a message's data did not match its type (invalid UTF-8 in text).
    public static let invalidFramePayloadData = WebSocketCloseCode(1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1009: a frame or message was too big to process.
    public static let messageTooBig = WebSocketCloseCode(1009)
    /// 1010: the client expected the server to negotiate an extension.
    public static let mandatoryExtension = WebSocketCloseCode(1010)
    /// 1011: the server hit an unexpected condition.
    public static let internalServerError = WebSocketCloseCode(1011)
    /// 1012: the service is restarting (IANA registry).
    public static let serviceRestart = WebSocketCloseCode(1012)
    /// 1013: try again later (IANA registry).
    public static let tryAgainLater = WebSocketCloseCode(1013)
    /// 1014: a gateway received an invalid response (IANA registry).
    public static let badGateway = WebSocketCloseCode(1014)
    /// 1015: reported locally when the TLS handshake failed; never sent.
    public static let tlsHandshakeFailure = WebSocketCloseCode(1015)

    /// Whether the code may appear in a close frame on the wire: 1000-1003, 1007-1014 and 3000-4999.
    /// A received close frame with any other code is a protocol error.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String {
        let name: String? = switch rawValue {
        case 1000: "normal closure"
        case 1001: "going away"
        case 1002: "protocol error"
        case 1003: "unsupported data"
        case 1005: "no status received"
        case 1006: "abnormal closure"
        case 1007: "invalid frame payload data"
        case 1008: "policy violation"
        case 1009: "message too big"
        case 1010: "mandatory extension"
        case 1011: "internal server error"
        case 1012: "service restart"
        case 1013: "try again later"
        case 1014: "bad gateway"
        case 1015: "TLS handshake failure"
        default: nil
        }
        return name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
