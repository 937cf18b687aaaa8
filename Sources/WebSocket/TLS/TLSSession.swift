import COpenSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One TLS connection's state, driven entirely with bytes: it never touches a socket.
///
/// The owner feeds ciphertext read from the transport with `feed(ciphertext:)`, advances the session with
/// `handshake()` / `readPlaintext(into:)` / `writePlaintext(_:)`, and after EVERY call sends what
/// `drainCiphertext()` returns (handshake messages, records, alerts, session tickets, close_notify).
///
/// Not `Sendable`: a session must be used by one thread at a time (e.g. under its connection's lock).
public final class TLSSession {
    /// Progress of the handshake.
    public enum HandshakeStatus: Sendable, Equatable {
        /// The handshake needs bytes from the peer: send the drained ciphertext, then feed the answer.
        case inProgress
        /// The handshake is done; plaintext can flow.
        case complete
    }

    /// What `readPlaintext(into:)` produced.
    public enum ReadResult: Sendable, Equatable {
        /// This many plaintext bytes were appended. Call again: a close_notify may follow them.
        case bytes(Int)
        /// No complete record is buffered: feed more ciphertext first.
        case wantMore
        /// The peer sent close_notify: no more data will come.
        case closed
    }

    /// Which side of the handshake this session plays.
    public enum Role: Sendable, Equatable {
        /// Sends the ClientHello and verifies the server's certificate.
        case client
        /// Answers a ClientHello with the configured certificate.
        case server
    }

    /// Whether this session is the client or the server.
    public let role: Role
    /// Client: the name the server must prove (and the SNI sent unless it is an IP address).
    /// Server: the name the client asked for with SNI, once the handshake completed (nil without SNI).
    public private(set) var serverName: String?
    /// Whether the handshake completed.
    public private(set) var isHandshakeComplete = false
    /// Whether the peer sent close_notify.
    public private(set) var isClosedByPeer = false
    /// Whether `shutdown()` queued our close_notify.
    public private(set) var isShutDown = false

    private let context: TLSContext  // keeps the SSL_CTX and its ALPN buffer alive as long as the SSL
    private let ssl: OpaquePointer
    private let readBIO: OpaquePointer  // ciphertext from the peer; owned by `ssl`
    private let writeBIO: OpaquePointer  // ciphertext for the peer; owned by `ssl`
    /// Plaintext accepted before the handshake completed (or refused by OpenSSL for now); sent when possible.
    private var pendingPlaintext: [UInt8] = []
    /// Set once the session failed; every later call rethrows it.
    private var failure: TLSError?

    private static let readChunkSize = 16 * 1024

    /// A client session that verifies the server's certificate chain and that the certificate is valid for
    /// `serverName` (a DNS name, or an IPv4/IPv6 literal, brackets allowed). SNI carries `serverName` unless it is an IP.
    public convenience init(client configuration: TLSConfiguration, serverName: String) throws(TLSError) {
        try self.init(role: .client, context: configuration.context)
        try configureClient(serverName: serverName)
        SSL_set_connect_state(ssl)
    }

    /// A server session presenting the configuration's certificate.
    public convenience init(server configuration: TLSServerConfiguration) throws(TLSError) {
        try self.init(role: .server, context: configuration.context)
        SSL_set_accept_state(ssl)
    }

    private init(role: Role, context: TLSContext) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let ssl = SSL_new(context.pointer) else {
            throw .resourceExhausted(reason: OpenSSLErrorQueue.drainReason(fallback: "SSL_new failed"))
        }
        guard let readBIO = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .resourceExhausted(reason: "BIO_new failed")
        }
        guard let writeBIO = BIO_new(BIO_s_mem()) else {
            BIO_free(readBIO)
            SSL_free(ssl)
            throw .resourceExhausted(reason: "BIO_new failed")
        }
        // An empty read BIO means "retry later" (not end of stream) until `feedEndOfStream()`.
        _ = copenssl_BIO_set_mem_eof_return(readBIO, -1)
        SSL_set_bio(ssl, readBIO, writeBIO)
        self.role = role
        self.context = context
        self.ssl = ssl
        self.readBIO = readBIO
        self.writeBIO = writeBIO
    }

    deinit {
        SSL_free(ssl)  // also frees both BIOs
    }

    // MARK: - Transport side

    /// Hands the session ciphertext received from the peer.
    public func feed(ciphertext: some Collection<UInt8>) {
        let fedContiguously: Void? = ciphertext.withContiguousStorageIfAvailable { buffer in
            writeToReadBIO(UnsafeRawBufferPointer(buffer))
        }
        if fedContiguously == nil {
            Array(ciphertext).withUnsafeBytes { writeToReadBIO($0) }
        }
    }

    /// Tells the session that the transport reached end of stream: once the fed bytes are consumed, reads
    /// report `.closed` if the peer sent close_notify, and `TLSError.unexpectedEOF` otherwise.
    public func feedEndOfStream() {
        _ = copenssl_BIO_set_mem_eof_return(readBIO, 0)
    }

    /// The ciphertext waiting to be sent to the peer, removed from the session.
    public func drainCiphertext() -> [UInt8] {
        var bytes: [UInt8] = []
        drainCiphertext(into: &bytes)
        return bytes
    }

    /// Appends the ciphertext waiting to be sent to `buffer` (saves an allocation when batching writes).
    public func drainCiphertext(into buffer: inout [UInt8]) {
        while true {
            let pending = Int(BIO_ctrl_pending(writeBIO))
            if pending == 0 { return }
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: pending))
            var count = 0
            let ok = buffer.withUnsafeMutableBytes { raw in
                BIO_read_ex(writeBIO, raw.baseAddress.map { $0 + start }, pending, &count) == 1
            }
            buffer.removeLast(pending - (ok ? count : 0))
            if !ok { return }
        }
    }

    /// The number of ciphertext bytes waiting for `drainCiphertext()`.
    public var pendingCiphertextCount: Int {
        Int(BIO_ctrl_pending(writeBIO))
    }

    // MARK: - TLS

    /// Advances the handshake with the ciphertext fed so far. The client's first call produces its ClientHello.
    public func handshake() throws(TLSError) -> HandshakeStatus {
        if let failure { throw failure }
        if isHandshakeComplete { return .complete }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            if role == .server, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) {
                serverName = String(cString: name)
            }
            try flushPendingPlaintext()
            return .complete
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .inProgress
        case let code:
            throw fail(handshakeError(code: code))
        }
    }

    /// Decrypts every complete record fed so far, appending the plaintext to `buffer`. Drives the handshake
    /// first if it is not complete.
    public func readPlaintext(into buffer: inout [UInt8]) throws(TLSError) -> ReadResult {
        if let failure { throw failure }
        if isClosedByPeer { return .closed }
        if !isHandshakeComplete, try handshake() == .inProgress { return .wantMore }

        var total = 0
        while true {
            OpenSSLErrorQueue.clear()
            var count = 0
            let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.readChunkSize) { chunk in
                let result = SSL_read_ex(ssl, chunk.baseAddress, chunk.count, &count)
                if result == 1 { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: chunk[0..<count])) }
                return result
            }
            if result == 1 {
                total += count
                continue
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                // Records may have been held back while OpenSSL needed to read (e.g. a key update).
                try flushPendingPlaintext()
                return total > 0 ? .bytes(total) : .wantMore
            case SSL_ERROR_ZERO_RETURN:
                isClosedByPeer = true
                return total > 0 ? .bytes(total) : .closed
            case let code:
                let error = fail(sessionError(code: code))
                // Hand out the authentic plaintext that preceded the failure; the next call throws.
                if total > 0 { return .bytes(total) }
                throw error
            }
        }
    }

    /// Encrypts `bytes` into records for `drainCiphertext()`. Before the handshake completes the plaintext
    /// is kept and encrypted as soon as it does.
    public func writePlaintext(_ bytes: some Collection<UInt8>) throws(TLSError) {
        if let failure { throw failure }
        if isShutDown { throw .writeAfterShutdown }
        pendingPlaintext.append(contentsOf: bytes)
        if isHandshakeComplete { try flushPendingPlaintext() }
    }

    /// Queues our close_notify (drain it and send it, then close or half-close the transport). Does nothing
    /// if the handshake never completed, the session failed, or it was already shut down.
    public func shutdown() {
        guard failure == nil, isHandshakeComplete, !isShutDown else { return }
        try? flushPendingPlaintext()
        guard failure == nil else { return }
        OpenSSLErrorQueue.clear()
        _ = SSL_shutdown(ssl)
        OpenSSLErrorQueue.clear()
        isShutDown = true
    }

    /// The negotiated TLS version, once the handshake completed.
    public var negotiatedVersion: TLSVersion? {
        isHandshakeComplete ? TLSVersion(openSSLValue: SSL_version(ssl)) : nil
    }

    /// The protocol agreed with ALPN (e.g. "http/1.1"), or nil if none was.
    public var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated cipher suite's OpenSSL name (e.g. "TLS_AES_256_GCM_SHA384"), once the handshake completed.
    public var negotiatedCipherSuite: String? {
        guard isHandshakeComplete, let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher)
        else { return nil }
        return String(cString: name)
    }

    // MARK: - Private

    private func writeToReadBIO(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let length = Int32(clamping: bytes.count - offset)
            // A memory BIO grows as needed, so the write only fails if allocation does; the handshake or
            // read that follows then reports the missing bytes as a failure.
            let written = BIO_write(readBIO, base + offset, length)
            if written <= 0 { return }
            offset += Int(written)
        }
    }

    private func configureClient(serverName rawName: String) throws(TLSError) {
        var name = rawName
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name = String(name.dropLast()) }
        guard !name.isEmpty, name.utf8.count <= 253, !name.utf8.contains(0) else {
            throw .invalidServerName(rawName, reason: "empty, too long or containing NUL")
        }
        serverName = name
        OpenSSLErrorQueue.clear()
        if Self.isIPAddress(name) {
            // No SNI for IP addresses (RFC 6066); the certificate must list the address as an iPAddress SAN.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 else {
                throw .invalidServerName(rawName, reason: OpenSSLErrorQueue.drainReason(fallback: "not an IP address"))
            }
            return
        }
        guard copenssl_SSL_set_tlsext_host_name(ssl, name) == 1 else {
            throw .invalidServerName(rawName, reason: OpenSSLErrorQueue.drainReason(fallback: "rejected for SNI"))
        }
        SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        guard SSL_set1_host(ssl, name) == 1 else {
            throw .invalidServerName(rawName, reason: OpenSSLErrorQueue.drainReason(fallback: "SSL_set1_host failed"))
        }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET, name, &address) == 1 || inet_pton(AF_INET6, name, &address) == 1
    }

    private func flushPendingPlaintext() throws(TLSError) {
        while !pendingPlaintext.isEmpty {
            OpenSSLErrorQueue.clear()
            var written = 0
            let result = pendingPlaintext.withUnsafeBytes { SSL_write_ex(ssl, $0.baseAddress, $0.count, &written) }
            if result == 1 {
                if written == pendingPlaintext.count {
                    pendingPlaintext.removeAll(keepingCapacity: pendingPlaintext.count <= Self.readChunkSize)
                } else {
                    pendingPlaintext.removeFirst(written)
                }
                continue
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                // Retried (with the same, possibly longer, buffer) after the next read.
                return
            case let code:
                throw fail(sessionError(code: code))
            }
        }
    }

    private func fail(_ error: TLSError) -> TLSError {
        failure = error
        pendingPlaintext = []
        return error
    }

    /// Classifies a failed handshake: certificate verification first, as it explains most refusals.
    private func handshakeError(code: Int32) -> TLSError {
        let entries = OpenSSLErrorQueue.drain()
        let verifyResult = Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
        if role == .client, verifyResult != X509_V_OK {
            return verificationError(verifyResult)
        }
        if Self.isUnexpectedEOF(code: code, entries: entries) {
            return .unexpectedEOF(duringHandshake: true)
        }
        if code == SSL_ERROR_ZERO_RETURN {
            return .handshakeFailed(reason: "the peer sent close_notify during the handshake")
        }
        return .handshakeFailed(reason: OpenSSLErrorQueue.reason(of: entries, fallback: Self.describe(code)))
    }

    private func sessionError(code: Int32) -> TLSError {
        let entries = OpenSSLErrorQueue.drain()
        if Self.isUnexpectedEOF(code: code, entries: entries) {
            return .unexpectedEOF(duringHandshake: false)
        }
        return .sessionFailed(reason: OpenSSLErrorQueue.reason(of: entries, fallback: Self.describe(code)))
    }

    private func verificationError(_ code: Int32) -> TLSError {
        let reason = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "verify error \(code)"
        switch code {
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            return .hostnameMismatch(serverName: serverName ?? "", reason: reason)
        case X509_V_ERR_CERT_HAS_EXPIRED:
            return .certificateExpired(reason: reason)
        case X509_V_ERR_CERT_NOT_YET_VALID:
            return .certificateNotYetValid(reason: reason)
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
            X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
            X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_CERT_UNTRUSTED:
            return .certificateNotTrusted(verifyCode: Int(code), reason: reason)
        default:
            return .certificateRejected(verifyCode: Int(code), reason: reason)
        }
    }

    /// OpenSSL 3 reports a transport EOF without close_notify as SSL_R_UNEXPECTED_EOF_WHILE_READING
    /// (older versions as SSL_ERROR_SYSCALL with an empty queue).
    private static func isUnexpectedEOF(code: Int32, entries: [OpenSSLErrorQueue.Entry]) -> Bool {
        if code == SSL_ERROR_SYSCALL && entries.isEmpty { return true }
        return entries.contains { $0.library == ERR_LIB_SSL && $0.reason == SSL_R_UNEXPECTED_EOF_WHILE_READING }
    }

    private static func describe(_ code: Int32) -> String {
        switch code {
        case SSL_ERROR_SYSCALL: "SSL_ERROR_SYSCALL"
        case SSL_ERROR_SSL: "SSL_ERROR_SSL"
        case SSL_ERROR_ZERO_RETURN: "SSL_ERROR_ZERO_RETURN"
        default: "SSL error \(code)"
        }
    }
}

/// A session holds an OpenSSL `SSL` that must not be used from two threads at once; the owner serializes access.
@available(*, unavailable)
extension TLSSession: Sendable {}
