import WebSocket

/// Drives a `TLSSession` over a blocking `TLSTestSocket`, the way the event loop will drive it over a
/// non-blocking one: feed what arrives, send what the session drains. Use only on a `TLSTestThread`.
final class TLSSocketPump {
    let session: TLSSession
    let socket: TLSTestSocket
    private var plaintext: [UInt8] = []
    private(set) var closedByPeer = false

    init(session: TLSSession, socket: TLSTestSocket) {
        self.session = session
        self.socket = socket
    }

    func handshake() throws {
        while true {
            let status: TLSSession.HandshakeStatus
            do {
                status = try session.handshake()
            } catch {
                try? socket.send(session.drainCiphertext())  // the alert telling the peer why
                throw error
            }
            try socket.send(session.drainCiphertext())
            if status == .complete { return }
            try receiveCiphertext()
        }
    }

    func write(_ bytes: [UInt8]) throws {
        try session.writePlaintext(bytes)
        try socket.send(session.drainCiphertext())
    }

    /// Reads until `count` plaintext bytes arrived (or the peer closed) and returns them.
    func read(count: Int) throws -> [UInt8] {
        while plaintext.count < count && !closedByPeer {
            switch try session.readPlaintext(into: &plaintext) {
            case .bytes: continue
            case .closed: closedByPeer = true
            case .wantMore: try receiveCiphertext()
            }
            try socket.send(session.drainCiphertext())
        }
        let result = Array(plaintext.prefix(count))
        plaintext.removeFirst(result.count)
        return result
    }

    /// Reads and discards plaintext until the peer's close_notify.
    func waitForCloseNotify() throws {
        while !closedByPeer {
            _ = try read(count: Int.max)
        }
    }

    func shutdown() throws {
        session.shutdown()
        try socket.send(session.drainCiphertext())
    }

    private func receiveCiphertext() throws {
        let bytes = try socket.receive()
        if bytes.isEmpty {
            session.feedEndOfStream()
        } else {
            session.feed(ciphertext: bytes)
        }
    }
}
