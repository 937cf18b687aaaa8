import Foundation

/// Reads `--option value` command-line arguments one at a time.
struct ArgumentReader {
    private var arguments: ArraySlice<String>

    init(_ arguments: [String]) {
        self.arguments = arguments[...]
    }

    /// The next option (`--name`, or `--name=value` whose value `value(for:)` then returns); nil at the end.
    mutating func nextOption() -> String? {
        guard let first = arguments.first else { return nil }
        arguments.removeFirst()
        if first.hasPrefix("--"), let equals = first.firstIndex(of: "=") {
            arguments.insert(String(first[first.index(after: equals)...]), at: arguments.startIndex)
            return String(first[..<equals])
        }
        return first
    }

    /// The value that follows `option`.
    mutating func value(for option: String) throws(BenchUsageError) -> String {
        guard let value = arguments.first else { throw BenchUsageError("\(option) needs a value") }
        arguments.removeFirst()
        return value
    }

    /// The value that follows `option`, as a non-negative integer (`20000`, `20_000` or `20k`).
    mutating func integer(for option: String) throws(BenchUsageError) -> Int {
        let text = try value(for: option)
        guard let number = Self.integer(text) else {
            throw BenchUsageError("\(option) takes a whole number, not \(text)")
        }
        return number
    }

    /// A comma-separated list of whole numbers (`1000,10000`).
    mutating func integers(for option: String) throws(BenchUsageError) -> [Int] {
        let text = try value(for: option)
        let numbers = text.split(separator: ",").map { Self.integer(String($0)) }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) else {
            throw BenchUsageError("\(option) takes whole numbers separated by commas, not \(text)")
        }
        return numbers.compactMap { $0 }
    }

    /// The value that follows `option`, as a non-negative number of seconds.
    mutating func seconds(for option: String) throws(BenchUsageError) -> Double {
        let text = try value(for: option)
        guard let number = Double(text), number >= 0 else {
            throw BenchUsageError("\(option) takes a number of seconds, not \(text)")
        }
        return number
    }

    private static func integer(_ text: String) -> Int? {
        var digits = text.replacingOccurrences(of: "_", with: "").lowercased()
        var scale = 1
        if digits.hasSuffix("k") {
            scale = 1000
            digits.removeLast()
        }
        guard let value = Int(digits), value >= 0 else { return nil }
        return value * scale
    }
}

/// A command line the bench cannot run; the text says what to change.
struct BenchUsageError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
