/// The parameters of a command, read from its usage text: `<name>` is required, `[name]` optional, and a
/// last parameter ending in `...` (or `…`) takes the rest of the text. A bare word counts as required.
///
/// Parsing is lenient on purpose (a usage text is prose the author writes once): a rest marker on any but
/// the last parameter is ignored.
struct CommandSignature: Hashable, Sendable {
    struct Parameter: Hashable, Sendable {
        var name: String
        var isRequired: Bool
        var takesRest: Bool
    }

    var parameters: [Parameter]

    init(usage: String) {
        var parameters: [Parameter] = usage.split(whereSeparator: \.isWhitespace).map { word in
            var name = Substring(word)
            var isRequired = true
            if name.hasPrefix("<"), name.hasSuffix(">"), name.count > 2 {
                name = name.dropFirst().dropLast()
            } else if name.hasPrefix("["), name.hasSuffix("]"), name.count > 2 {
                name = name.dropFirst().dropLast()
                isRequired = false
            }
            var takesRest = false
            for marker in ["...", "…"] where name.hasSuffix(marker) && name.count > marker.count {
                name = name.dropLast(marker.count)
                takesRest = true
            }
            return Parameter(name: String(name), isRequired: isRequired, takesRest: takesRest)
        }
        for index in parameters.indices.dropLast() { parameters[index].takesRest = false }
        self.parameters = parameters
    }

    /// The usage as shown to people: `<delay> <task...>`.
    var usage: String {
        parameters.map { parameter in
            let name = parameter.takesRest ? parameter.name + "..." : parameter.name
            return parameter.isRequired ? "<\(name)>" : "[\(name)]"
        }.joined(separator: " ")
    }

    enum Mismatch: Hashable, Sendable {
        case missing(Parameter)
        case unexpected(String)
    }

    /// Assigns `tokens` (the words after the command's name, in `text`) to the parameters in order; an
    /// optional parameter gets a word only when enough are left for the required ones after it.
    func bind(_ tokens: ArraySlice<CommandTokenizer.Token>, in text: String) -> Result<[String: String], CommandSignature.BindingFailure> {
        var values: [String: String] = [:]
        var index = tokens.startIndex
        for (position, parameter) in parameters.enumerated() {
            let requiredAfter = parameters[(position + 1)...].filter(\.isRequired).count
            let remaining = tokens.endIndex - index
            if parameter.takesRest {
                if remaining > 0 {
                    values[parameter.name] = Self.rest(of: tokens[index...], in: text)
                    index = tokens.endIndex
                } else if parameter.isRequired {
                    return .failure(BindingFailure(mismatch: .missing(parameter)))
                }
            } else if parameter.isRequired {
                guard remaining > 0 else { return .failure(BindingFailure(mismatch: .missing(parameter))) }
                values[parameter.name] = tokens[index].value
                index += 1
            } else if remaining > requiredAfter {
                values[parameter.name] = tokens[index].value
                index += 1
            }
        }
        guard index == tokens.endIndex else {
            return .failure(BindingFailure(mismatch: .unexpected(Self.rest(of: tokens[index...], in: text))))
        }
        return .success(values)
    }

    struct BindingFailure: Error, Hashable, Sendable {
        var mismatch: Mismatch
    }

    /// The text from the first of `tokens` to the end as written, or the unquoted value when it is one
    /// quoted word.
    static func rest(of tokens: ArraySlice<CommandTokenizer.Token>, in text: String) -> String {
        guard let first = tokens.first, let last = tokens.last else { return "" }
        if tokens.count == 1, first.isQuoted { return first.value }
        return String(text[first.range.lowerBound..<last.range.upperBound])
    }
}
