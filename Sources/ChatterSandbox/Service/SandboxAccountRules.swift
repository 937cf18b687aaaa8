/// What the sandbox accepts as an account: a username of 3 to 32 ASCII letters, digits, `_` or `.`, and a password
/// of `minimumPasswordLength` to 256 characters. The service applies them when it creates an account; the command
/// line's `check` applies them to the bots' accounts before the embedded sandbox is asked to create them.
package struct SandboxAccountRules: Sendable {
    /// Shortest accepted password, in characters.
    package var minimumPasswordLength: Int

    package init(minimumPasswordLength: Int) {
        self.minimumPasswordLength = minimumPasswordLength
    }

    /// Why `username` cannot name an account, in the service's words; nil when it can.
    package func usernameProblem(_ username: String) -> String? {
        let allowed = username.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == ".")
        }
        guard (3...32).contains(username.count), allowed else {
            return "A username has 3 to 32 characters: ASCII letters, digits, \"_\" and \".\"."
        }
        return nil
    }

    /// Why `password` cannot be an account's, in the service's words; nil when it can.
    package func passwordProblem(_ password: String) -> String? {
        guard (minimumPasswordLength...256).contains(password.count) else {
            return "A password has \(minimumPasswordLength) to 256 characters."
        }
        return nil
    }
}
