import ChatterBots
import Foundation

/// Decodes JSON request bodies and turns every decoding failure into `VALIDATION_FAILED` whose
/// `details.field` names the field at fault (dotted path, e.g. `device.name`; `body` for malformed JSON).
enum RESTBodyDecoder {
    static func decode<Body: Decodable>(_ type: Body.Type, from bytes: [UInt8]) throws(ChatterErrorBody) -> Body {
        guard !bytes.isEmpty else {
            throw .validation(field: "body", "This endpoint needs a JSON body.")
        }
        do {
            return try JSONDecoder().decode(Body.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw validationError(error)
        } catch {
            throw .validation(field: "body", "The body is not valid JSON.")
        }
    }

    static func validationError(_ error: DecodingError) -> ChatterErrorBody {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { String($0) } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return .validation(field: field, "\(field) is required.")
        case .valueNotFound(_, let context):
            let field = path(context.codingPath)
            return .validation(field: field.isEmpty ? "body" : field, "\(field.isEmpty ? "The body" : field) must not be null.")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            if field.isEmpty { return .validation(field: "body", "The body must be a JSON object.") }
            return .validation(field: field, "\(field) has the wrong type (expected \(describe(type))).")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if field.isEmpty { return .validation(field: "body", "The body is not valid JSON.") }
            return .validation(field: field, "\(field) is invalid: \(context.debugDescription)")
        @unknown default:
            return .validation(field: "body", "The body could not be read.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "\(type)"
        }
    }
}
