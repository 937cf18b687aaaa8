import ChatterBots
import Foundation

/// Decodes JSON request bodies and turns every decoding failure into `VALIDATION_FAILED` whose
/// `details.field` names the field at fault (dotted path, e.g. `device.name`; `body` for a body that is not
/// UTF-8 JSON). A field the endpoint does not read is refused too, naming it, so that a misspelling
/// changes nothing silently.
enum RESTBodyDecoder {
    static func decode<Body: Decodable>(_ type: Body.Type, from bytes: [UInt8]) throws(ChatterErrorBody) -> Body {
        guard !bytes.isEmpty else {
            throw .validation(field: "body", "This endpoint needs a JSON body.")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .validation(field: "body", "The body is not valid UTF-8; JSON bodies are UTF-8 text.")
        }
        do {
            let (body, unknownField) = try UnknownFieldDetector.decode(Body.self, from: bytes)
            if let unknownField {
                throw ChatterErrorBody.validation(
                    field: unknownField, "\(unknownField) is not a field of this request; check its spelling.")
            }
            return body
        } catch let error as ChatterErrorBody {
            throw error
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
