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
    /// The path of the field at fault, e.g. `type` or `data.createdAt`; empty for the frame as a whole.
    public var field: String
    public var reason: Reason
    /// What the decoder said, for logs.
    public var detail: String

    public init(frameType: String?, field: String, reason: Reason, detail: String) {
        self.frameType = frameType
        self.field = field
        self.reason = reason
        self.detail = detail
    }

    public var description: String {
        let frame = frameType.map { "'\($0)' frame" } ?? "Frame"
        let place = field.isEmpty ? "" : " at '\(field)'"
        return "\(frame) not decodable\(place) (\(reason.rawValue)): \(detail)"
    }

    init(frameType: String?, _ error: DecodingError) {
        switch error {
        case .keyNotFound(let key, let context):
            self.init(
                frameType: frameType, field: Self.path(context.codingPath + [key]), reason: .missingValue,
                detail: context.debugDescription)
        case .valueNotFound(_, let context):
            self.init(
                frameType: frameType, field: Self.path(context.codingPath), reason: .missingValue,
                detail: context.debugDescription)
        case .typeMismatch(_, let context):
            self.init(
                frameType: frameType, field: Self.path(context.codingPath),
                reason: context.codingPath.isEmpty && frameType == nil ? .notAnObject : .wrongType,
                detail: context.debugDescription)
        case .dataCorrupted(let context):
            self.init(
                frameType: frameType, field: Self.path(context.codingPath),
                reason: context.codingPath.isEmpty && frameType == nil ? .notJSON : .invalidValue,
                detail: context.debugDescription)
        @unknown default:
            self.init(frameType: frameType, field: "", reason: .invalidValue, detail: String(describing: error))
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
