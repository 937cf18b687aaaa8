import ChatterBots
import Foundation
import WebSocket

/// What one received WebSocket message turned out to be.
public enum ParsedClientFrame: Sendable, Hashable {
    /// A well-formed frame of a known client type.
    case request(ClientFrame)
    /// A JSON frame of a type the server does not know: ignored, without a reply ("Ignore unknown types").
    case ignored(type: String)
    /// A frame the server answers with an `error` (VALIDATION_FAILED) and otherwise ignores; the socket stays open.
    /// `replyTo` is the frame's `id` when it had a readable one.
    case rejected(replyTo: String?, ChatterErrorBody)
    /// A text frame over the size limit: the socket closes with 1009.
    case tooLarge(byteCount: Int)
}

/// Reads client frames by the rules of the realtime contract: every frame is a JSON text object with a string
/// `type`; a frame that is not JSON, lacks `type` or has a malformed `data` is answered `VALIDATION_FAILED`
/// (naming the field in `details.field`); a frame of an unknown type is ignored, as the seed's frame format
/// says ("Ignore unknown types"); a text frame over `maxFrameBytes` is fatal (1009).
public struct ClientFrameParser: Sendable {
    /// The largest text frame accepted, in bytes.
    public var maxFrameBytes: Int

    public init(maxFrameBytes: Int = 64 * 1024) {
        self.maxFrameBytes = maxFrameBytes
    }

    /// Classifies one received message.
    public func parse(_ message: WebSocketMessage) -> ParsedClientFrame {
        switch message {
        case .binary:
            return .rejected(
                replyTo: nil,
                Self.validationFailed("Frames must be JSON text frames, not binary.", field: nil))
        case .text(let text):
            let byteCount = text.utf8.count
            if byteCount > maxFrameBytes { return .tooLarge(byteCount: byteCount) }
            return parse(json: Data(text.utf8))
        }
    }

    private func parse(json: Data) -> ParsedClientFrame {
        let frame: ClientFrame
        do {
            frame = try ClientFrame(jsonData: json)
        } catch {
            return .rejected(replyTo: Self.readableID(in: json), Self.body(for: error))
        }
        if case .unknown(let type, _) = frame.request { return .ignored(type: type) }
        return .request(frame)
    }

    /// The frame's `id` when it is a string, read leniently from a frame that failed to decode.
    private static func readableID(in json: Data) -> String? {
        struct Envelope: Decodable { var id: String? }
        return (try? JSONDecoder().decode(Envelope.self, from: json))?.id
    }

    private static func body(for error: FrameDecodingError) -> ChatterErrorBody {
        switch error.reason {
        case .notJSON:
            return validationFailed("The frame is not valid JSON.", field: nil)
        case .notAnObject:
            return validationFailed("The frame must be a JSON object.", field: nil)
        case .missingValue where error.field == "type" && error.frameType == nil:
            return validationFailed("The frame has no type.", field: "type")
        case .missingValue:
            return validationFailed("Missing value for \(error.field).", field: error.field)
        case .wrongType:
            return validationFailed("Wrong type for \(error.field.isEmpty ? "the frame" : error.field).", field: error.field)
        case .invalidValue:
            return validationFailed("Invalid value for \(error.field.isEmpty ? "the frame" : error.field).", field: error.field)
        }
    }

    static func validationFailed(_ message: String, field: String?) -> ChatterErrorBody {
        let details: JSONValue? = field.flatMap { $0.isEmpty ? nil : ["field": .string($0)] }
        return ChatterErrorBody(code: .validationFailed, message: message, details: details)
    }
}
