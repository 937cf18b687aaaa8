import ChatterBots
import Foundation
import Synchronization

/// Keeps secrets out of logs. Every record passes through it before it is formatted:
///
/// - values registered with `register(_:)` (passwords, access and refresh tokens as the runtime obtains them) are
///   masked wherever they appear, raw or escaped as URLs, forms and JSON escape them (`%2f`, `+`, `\/`);
/// - `token=…` and the like in URLs and text (`token`, `access_token`, `accessToken`, `refresh_token`,
///   `refreshToken`, `password`, `client_secret`, `clientSecret`) lose their value, so the realtime URL
///   `wss://…/ws?clientKey=…&token=…` can be logged as is;
/// - the same names as JSON properties (`"refreshToken": "…"`) and `Bearer …` credentials lose their value;
/// - a field whose key names a secret (containing `password`, `token`, `secret` or `authorization`, in any case)
///   is masked whole.
///
/// Masked text reads `[REDACTED]`. Registered values shorter than `minimumSecretLength` are ignored: masking a
/// two-letter "secret" everywhere would garble the logs without protecting anything. Masking registered values
/// costs time per character of the record, whatever their number (`SecretSet`).
public final class LogRedactor: Sendable {
    /// What replaces a secret.
    public static let mask = "[REDACTED]"
    /// Registered values shorter than this are not masked.
    public static let minimumSecretLength = 6

    private let secrets = Mutex(SecretSet())

    private static let secretNames = "token|access_token|accesstoken|refresh_token|refreshtoken|password|client_secret|clientsecret"
    /// `name=value` in a URL query or in text: the value runs to the next `&`, space, quote, `#` or `;`.
    // The patterns are constants known to compile; `try?` only guards against a Foundation regression.
    private static let assignment = try? NSRegularExpression(
        pattern: "(?<![A-Za-z0-9_])((?:\(secretNames))=)[^&\\s\"'#;,]+", options: [.caseInsensitive])
    /// `"name": "value"` in JSON text.
    private static let jsonProperty = try? NSRegularExpression(
        pattern: "(\"(?:\(secretNames))\"\\s*:\\s*\")(?:[^\"\\\\]|\\\\.)*\"", options: [.caseInsensitive])
    /// `Bearer value` (an Authorization header's credentials).
    private static let bearer = try? NSRegularExpression(
        pattern: "(\\bBearer\\s+)[A-Za-z0-9._~+/=-]+", options: [.caseInsensitive])

    /// Creates a redactor with no registered secrets.
    public init() {}

    /// Masks `secret` in every record from now on: as given, in both Unicode normalization forms (a text may
    /// spell "ä" as one scalar or two), and however a URL, a form or JSON escaped it (`SecretSet`).
    public func register(_ secret: String) {
        guard secret.count >= Self.minimumSecretLength else { return }
        // Tokens are ASCII, for which both normalization forms are the text itself.
        var forms = [secret]
        if !ASCII.holdsOnlyASCII(secret) {
            // Compared as bytes: `String` equality holds the two forms equal.
            for form in [secret.precomposedStringWithCanonicalMapping, secret.decomposedStringWithCanonicalMapping]
            where !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
                forms.append(form)
            }
        }
        secrets.withLock { set in
            for form in forms { set.insert(form) }
        }
    }

    /// Whether a field with this key holds a secret by its name alone.
    public func isSecretKey(_ key: String) -> Bool {
        // An ASCII key is read byte by byte; other text is lowercased as Unicode, where a sign such as U+212A (Kelvin)
        // lowercases to an ASCII letter.
        guard ASCII.holdsOnlyASCII(key) else {
            let lowered = key.lowercased()
            return Self.secretKeyWords.contains { lowered.contains($0) }
        }
        return Self.secretKeyWords.contains { ASCII.text(key, holdsInAnyCase: $0) }
    }

    /// The words a field's key names a secret with.
    private static let secretKeyWords = ["password", "token", "secret", "authorization"]

    /// `text` with every registered secret and every recognizable credential masked.
    public func redact(_ text: String) -> String {
        var result = secrets.withLock { $0 }.masking(in: text, with: Self.mask)
        guard Self.mayHoldCredentials(result) else { return result }
        for pattern in [Self.assignment, Self.jsonProperty, Self.bearer].compactMap({ $0 }) {
            let range = NSRange(result.startIndex..., in: result)
            let template = pattern === Self.jsonProperty ? "$1\(Self.mask)\"" : "$1\(Self.mask)"
            result = pattern.stringByReplacingMatches(in: result, options: [], range: range, withTemplate: template)
        }
        return result
    }

    private static let bearerLowercased = Array("bearer".utf8)

    /// Whether `text` holds what one of the patterns needs (`=`, `"` or, in any case, `bearer`): most log text holds
    /// none, and a scan of its bytes costs far less than the patterns. One pass looks for all three, which is why it
    /// does not ask `ASCII.text(_:holdsInAnyCase:)` for the word.
    static func mayHoldCredentials(_ text: String) -> Bool {
        let bearer = Self.bearerLowercased
        var matched = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") || byte == UInt8(ascii: "\"") { return true }
            // ASCII letters only: no other character folds to one of these.
            let lowered = ASCII.lowercased(byte)
            if lowered == bearer[matched] {
                matched += 1
                if matched == bearer.count { return true }
            } else {
                matched = lowered == bearer[0] ? 1 : 0
            }
        }
        return false
    }

    /// `record` with its message and fields redacted, and fields named like secrets masked whole.
    public func redact(_ record: LogRecord) -> LogRecord {
        var copy = record
        copy.message = redact(record.message)
        copy.fields = record.fields.reduce(into: [:]) { fields, field in
            fields[field.key] = isSecretKey(field.key) ? Self.mask : redact(field.value)
        }
        if let trace = record.trace { copy.trace = redact(trace) }
        return copy
    }
}
