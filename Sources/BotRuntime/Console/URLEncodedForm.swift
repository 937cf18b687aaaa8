import Foundation

/// The fields of an `application/x-www-form-urlencoded` body (what the console's sign-in form posts): split on `&`
/// and `=`, `+` read as a space, each part percent-decoded. Parsed here rather than by `URLComponents`, whose query
/// setter stops the process on a stray `%`.
struct URLEncodedForm {
    /// The fields in the order sent, names and values decoded.
    private(set) var fields: [(name: String, value: String)] = []

    /// - Throws: `ConsoleInputError` when the body is not UTF-8, or a part has a `%` that two hex digits of UTF-8
    ///   do not follow (a literal `%` is sent as `%25`).
    init(_ body: [UInt8]) throws(ConsoleInputError) {
        guard let text = String(validating: body, as: UTF8.self) else {
            throw ConsoleInputError("the form body is not UTF-8; send it as the browser does (application/x-www-form-urlencoded)")
        }
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { throw Self.malformed("a field's name") }
            guard let value = parts.count > 1 ? Self.decode(parts[1]) : "" else {
                throw Self.malformed("the value of the field \(name)")
            }
            fields.append((name, value))
        }
    }

    /// The value of the first field named `name`.
    func value(of name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// `part` with `+` as a space and percent-decoded; nil when its encoding is broken.
    private static func decode(_ part: Substring) -> String? {
        part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The refusal of a broken part, named without echoing it (it may be the token).
    private static func malformed(_ part: String) -> ConsoleInputError {
        ConsoleInputError("\(part) in the form body is not valid percent-encoding: every % must be followed by two hex "
            + "digits of UTF-8 (write a literal % as %25)")
    }
}
