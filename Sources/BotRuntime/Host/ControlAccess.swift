import Foundation
import WebSocket

/// Who may use the control routes (quarantine, reload, console): anyone who can reach a loopback bind, and
/// otherwise only a request carrying the control token as `Authorization: Bearer <token>`. When a token is set, it
/// is required on loopback too. One scheme for every control route, checked in one place (`HealthServer`).
public struct ControlAccess: Sendable, Equatable {
    /// The token a control request must carry; nil: none is asked for (only allowed on loopback).
    public var token: String?

    /// The environment variable holding the token, and the one naming a file that holds it (a Kubernetes Secret
    /// mounted as a file).
    public static let tokenVariable = "CHATTERBOTS_CONTROL_TOKEN"
    public static let tokenFileVariable = "CHATTERBOTS_CONTROL_TOKEN_FILE"

    public init(token: String?) {
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The token of `environment`: the variable's value, else the first line of the file the other one names.
    ///
    /// - Throws: `ControlAccessError.unreadableTokenFile` when the file cannot be read.
    public static func token(in environment: [String: String]) throws(ControlAccessError) -> String? {
        if let token = environment[tokenVariable], !token.isEmpty { return token }
        guard let path = environment[tokenFileVariable], !path.isEmpty else { return nil }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw .unreadableTokenFile(path) }
        let token = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !token.isEmpty else { throw .unreadableTokenFile(path) }
        return token
    }

    /// Whether `host` is a loopback address (or `localhost`), reachable from this machine only: a name such as
    /// `127.attacker.example` is not one, however it begins.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || (isIPv4(host) && host.hasPrefix("127."))
    }

    /// Whether `host` is a dotted-quad IPv4 address: four decimal numbers from 0 to 255, digits only.
    package static func isIPv4(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            (1...3).contains(part.count) && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) && UInt8(part) != nil
        }
    }

    /// Checks that binding to `host` is safe with this access: off loopback, a token is required.
    public func check(bind host: String) throws(ControlAccessError) {
        if token == nil && !Self.isLoopback(host) { throw .tokenRequired(bind: host) }
    }

    /// The shortest token that is not called guessable off loopback: 16 characters, 64 bits or more as hex.
    package static let shortTokenLength = 16

    /// A warning when binding to `host` off loopback with a token short enough to be guessed (nothing limits how
    /// often a wrong one may be tried); nil otherwise.
    package func weakTokenWarning(bind host: String) -> String? {
        guard let token, token.count < Self.shortTokenLength, !Self.isLoopback(host) else { return nil }
        return "the control token has \(token.count) characters and the HTTP endpoint binds to \(host), off loopback: "
            + "anyone who reaches the port can guess it; use \(Self.shortTokenLength) random characters or more "
            + "(`openssl rand -hex 16`)"
    }

    /// Whether `request` may use a control route.
    func permits(_ request: HTTPRequest) -> Bool {
        token == nil || hasValidBearer(request)
    }

    /// Why a control request is refused although no token is set (the server then listens on loopback only), or
    /// nil. A page in the operator's browser could otherwise reload the fleet or retry and drop quarantined work
    /// (a cross-site request), or read the quarantine through a name of its own resolving to 127.0.0.1 (DNS
    /// rebinding). So the `Host` must be a loopback address, and a request a browser marks as coming from a page
    /// (`Origin`, `Sec-Fetch-Site` other than `none`) must come from this server's own. The command line and curl
    /// send neither. With a token nothing is needed: a browser never adds the bearer header by itself.
    func refusalWithoutToken(_ request: HTTPRequest) -> String? {
        guard token == nil else { return nil }
        let host = request.headers.first(name: "Host")?.lowercased() ?? ""
        guard let (name, _) = ConsoleRequestCheck.split(host), Self.isLoopback(name) else {
            return "Host \(host) is not a loopback address: without CHATTERBOTS_CONTROL_TOKEN the control routes "
                + "answer only requests for 127.0.0.1 or localhost (names of other sites are refused, against DNS rebinding)"
        }
        return ConsoleRequestCheck.otherPageRefusal(
            of: request, host: host, answering: "the control routes answer the command line, curl, or a request with the control token")
    }

    /// Whether `request` carries the control token as `Authorization: Bearer` (never true without a token).
    func hasValidBearer(_ request: HTTPRequest) -> Bool {
        guard let token else { return false }
        guard let header = request.headers.first(name: "Authorization"), header.hasPrefix("Bearer ") else { return false }
        return Self.constantTimeEqual(Array(header.utf8.dropFirst("Bearer ".utf8.count)), Array(token.utf8))
    }

    /// Whether `candidate` is the token (false when none is set).
    func accepts(token candidate: String) -> Bool {
        guard let token else { return false }
        return Self.constantTimeEqual(Array(candidate.utf8), Array(token.utf8))
    }

    /// Compares without stopping at the first difference, so the time taken says nothing of the token.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}

/// Why the control routes cannot be served as configured.
public enum ControlAccessError: Error, Equatable, CustomStringConvertible {
    /// Binding off loopback without a control token.
    case tokenRequired(bind: String)
    /// `CHATTERBOTS_CONTROL_TOKEN_FILE` names a file that cannot be read or is empty.
    case unreadableTokenFile(String)

    public var description: String {
        switch self {
        case .tokenRequired(let bind):
            "the HTTP endpoint binds to \(bind), off loopback: set \(ControlAccess.tokenVariable) (or "
                + "\(ControlAccess.tokenFileVariable)) to a secret token that control requests must carry, or bind to 127.0.0.1"
        case .unreadableTokenFile(let path):
            "\(ControlAccess.tokenFileVariable) names \(path), which cannot be read or holds no token"
        }
    }
}
