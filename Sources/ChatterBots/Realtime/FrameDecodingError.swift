/// A realtime frame that could not be decoded. It names the frame's `type` (when it could be read) and
/// the field at fault as a path such as `data.messages[0].seq`, so the frame can be logged and skipped.
public struct FrameDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the frame.
    public enum Reason: String, Hashable, Sendable {
        /// The text is not JSON.
        case notJSON
        /// The JSON is not an object.
        case notAnObject
        /// A required field is absent or null.
        case missingValue
        /// A field has the wrong JSON type (e.g. a string where a number belongs).
        case wrongType
        /// A field has the right type but an invalid value (e.g. a malformed timestamp).
        case invalidValue
    }

    /// The frame's `type`; nil when the frame has none or it could not be read.
    public var frameType: String?
    /// The frame's `replyTo` when the envelope could be read: the request this broken reply answers, which the
    /// connection settles at once with `RealtimeError.invalidReply` instead of letting it wait for its timeout.
    public var replyTo: String?
    /// The path of the field at fault, e.g. `type` or `data.createdAt`; empty for the frame as a whole.
    public var field: String
    /// What kind of fault it is, for code that reacts differently to, say, non-JSON and a wrong field type.
    public var reason: Reason
    /// What the decoder said, for logs.
    public var detail: String

    /// An error with every field given (the decoders build theirs from a `DecodingError`).
    public init(frameType: String?, replyTo: String? = nil, field: String, reason: Reason, detail: String) {
        self.frameType = frameType
        self.replyTo = replyTo
        self.field = field
        self.reason = reason
        self.detail = detail
    }

    public var description: String {
        let frame = frameType.map { "'\($0)' frame" } ?? "Frame"
        let reply = replyTo.map { " replying to \($0)" } ?? ""
        let place = field.isEmpty ? "" : " at '\(field)'"
        return "\(frame)\(reply) not decodable\(place) (\(reason.rawValue)): \(detail)"
    }

    init(frameType: String?, replyTo: String? = nil, _ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(
                frameType: frameType, replyTo: replyTo, field: Self.path(context.codingPath + [key]), reason: .missingValue,
                detail: context.debugDescription)
        case .valueNotFound(_, let context):
            self.init(
                frameType: frameType, replyTo: replyTo, field: Self.path(context.codingPath), reason: .missingValue,
                detail: context.debugDescription)
        case .typeMismatch(_, let context):
            self.init(
                frameType: frameType, replyTo: replyTo, field: Self.path(context.codingPath),
                reason: context.codingPath.isEmpty && frameType == nil ? .notAnObject : .wrongType,
                detail: context.debugDescription)
        case .dataCorrupted(let context):
            self.init(
                frameType: frameType, replyTo: replyTo, field: Self.path(context.codingPath),
                reason: context.codingPath.isEmpty && frameType == nil ? .notJSON : .invalidValue,
                detail: context.debugDescription)
        @unknown default:
            self.init(frameType: frameType, replyTo: replyTo, field: "", reason: .invalidValue, detail: String(describing: error))
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }
}
