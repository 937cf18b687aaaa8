/// HTTP header fields in their received or intended order, looked up by name without regard to ASCII case.
/// Shared by the handshake (here) and the HTTP parser and serializer of the I/O layer.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    public typealias Element = (name: String, value: String)

    private struct Field: Sendable, Hashable {
        var name: String
        var value: String
    }

    private var fields: [Field] = []

    /// Creates an empty set of headers.
    public init() {}

    /// Creates headers from (name, value) pairs, keeping their order.
    public init(_ pairs: some Sequence<(String, String)>) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    /// Creates headers from a literal list of (name, value) pairs, keeping their order and any repeated names.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The number of header fields (a name sent twice counts twice).
    public var count: Int { fields.count }

    /// Whether there are no header fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Appends a field, keeping any earlier fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Appends every pair, in order.
    public mutating func add(contentsOf pairs: some Sequence<(String, String)>) {
        for (name, value) in pairs { add(name: name, value: value) }
    }

    /// Appends every field of `other`, in order.
    public mutating func add(contentsOf other: HTTPHeaders) {
        fields.append(contentsOf: other.fields)
    }

    /// Replaces every field named `name` with one field holding `value`, at the position of the first.
    public mutating func replaceOrAdd(name: String, value: String) {
        guard let first = fields.firstIndex(where: { Self.sameName($0.name, name) }) else {
            add(name: name, value: value)
            return
        }
        fields[first].value = value
        var index = fields.count - 1
        while index > first {
            if Self.sameName(fields[index].name, name) { fields.remove(at: index) }
            index -= 1
        }
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// The values of every field named `name`, in order.
    public subscript(name: String) -> [String] {
        fields.lazy.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    /// The value of the first field named `name`.
    public func first(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Whether a field named `name` is present.
    public func contains(name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Whether the comma-separated lists of the fields named `name` (such as Connection or Upgrade) contain
    /// `token`, compared without regard to ASCII case and surrounding whitespace.
    public func contains(token: String, inHeader name: String) -> Bool {
        self[name].contains { value in
            value.split(separator: ",").contains { element in
                Self.sameName(element.trimmingOWS(), token)
            }
        }
    }

    /// Iterates the fields in order as (name, value) pairs.
    public func makeIterator() -> some IteratorProtocol<Element> {
        fields.lazy.map { (name: $0.name, value: $0.value) }.makeIterator()
    }

    /// The fields as "Name: value" lines, for logs.
    public var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Equal when they hold the same fields in the same order, names compared without regard to case.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { sameName($0.name, $1.name) && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields.count)
        for field in fields {
            for byte in field.name.utf8 { hasher.combine(Self.lowercased(byte)) }
            hasher.combine(field.value)
        }
    }

    static func sameName(_ lhs: some StringProtocol, _ rhs: some StringProtocol) -> Bool {
        lhs.utf8.count == rhs.utf8.count && zip(lhs.utf8, rhs.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
    func trimmingOWS() -> SubSequence {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isOWS($0) }), let last = lastIndex(where: { !isOWS($0) }) else {
            return self[endIndex...]
        }
        return self[start...last]
    }
}
