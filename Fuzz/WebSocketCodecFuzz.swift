// libFuzzer target: the WebSocket frame decoder and the protocol state machine, fed arbitrary bytes in both roles.
//
// Input layout: byte 0 chooses the role (bit 0), the read size (bits 1-5: 1...32 bytes, or everything at once
// when 0) and what ends the connection (bits 6-7: nothing, our close, the close timer, a transport drop).
// The rest is what the peer sent.
//
// Besides "no crash, no hang", it checks properties that must hold for any input:
// - a frame the decoder returns encodes back to bytes that decode to the same frame;
// - every byte sequence the state machine writes is valid for the peer (the opposite role) to decode;
// - after `.finished` the state machine produces no further action;
// - a text message delivered is valid UTF-8 (a Swift String, re-validated by the codec's validator).

import WebSocket

@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketCodecFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let control = input.first else { return 0 }
    let role: WebSocketRole = control & 1 == 0 ? .client : .server
    let chunkSize = Int((control >> 1) & 0x1F)
    let ending = control >> 6
    let bytes = Array(input.dropFirst())
    let limits = WebSocketLimits(maxFrameSize: 1 << 14, maxMessageSize: 1 << 15)

    fuzzDecoder(bytes, role: role, chunkSize: chunkSize, limits: limits)
    fuzzProtocolState(bytes, role: role, chunkSize: chunkSize, ending: ending, limits: limits)
    return 0
}

private func chunks(of bytes: [UInt8], size: Int) -> [ArraySlice<UInt8>] {
    guard size > 0 else { return [bytes[...]] }
    return stride(from: 0, to: bytes.count, by: size).map { bytes[$0..<min($0 + size, bytes.count)] }
}

private func fuzzDecoder(_ bytes: [UInt8], role: WebSocketRole, chunkSize: Int, limits: WebSocketLimits) {
    var decoder = WebSocketFrameDecoder(role: role, maxFrameSize: limits.maxFrameSize)
    for chunk in chunks(of: bytes, size: chunkSize) {
        decoder.append(chunk)
        while true {
            let frame: WebSocketFrame
            do {
                guard let next = try decoder.nextFrame() else { break }
                frame = next
            } catch {
                // The decoder keeps reporting its first violation.
                do {
                    _ = try decoder.nextFrame()
                    fatalError("the decoder recovered after \(error)")
                } catch let again {
                    require(again == error, "the decoder reported \(error), then \(again)")
                }
                return
            }
            var reDecoder = WebSocketFrameDecoder(role: role, maxFrameSize: limits.maxFrameSize)
            reDecoder.append(WebSocketFrameEncoder.encode(frame))
            do {
                let again = try reDecoder.nextFrame()
                require(again == frame, "a decoded frame did not survive encode/decode: \(frame) became \(String(describing: again))")
            } catch {
                fatalError("a decoded frame re-encoded is rejected: \(error) for \(frame)")
            }
        }
    }
}

private func fuzzProtocolState(
    _ bytes: [UInt8], role: WebSocketRole, chunkSize: Int, ending: UInt8, limits: WebSocketLimits
) {
    var state = WebSocketProtocolState(role: role, limits: limits)
    let peerRole: WebSocketRole = role == .client ? .server : .client
    // Our writes, as the peer decodes them (its frame limit is the largest frame we may write: a 16 KiB message).
    var peer = WebSocketFrameDecoder(role: peerRole, maxFrameSize: 1 << 20)
    var finished = false

    func check(_ actions: [WebSocketAction]) {
        for action in actions {
            require(!finished, "action \(action) after .finished")
            switch action {
            case .write(let written):
                peer.append(written)
                do {
                    while try peer.nextFrame() != nil {}
                } catch {
                    fatalError("the state machine wrote a frame its peer rejects: \(error)")
                }
            case .deliver(.text(let text)):
                require(UTF8Validator.isValidUTF8(Array(text.utf8)), "delivered text is not UTF-8")
            case .finished:
                finished = true
            case .deliver(.binary), .pong, .startCloseTimer, .closeTransport:
                break
            }
        }
    }

    for chunk in chunks(of: bytes, size: chunkSize) {
        check(state.receive(chunk))
        if !finished, state.isOpen, let echo = try? state.send(.text("echo")) {
            check([.write(echo)])
        }
    }
    switch ending {
    case 1: check(state.close(code: .normalClosure, reason: "bye"))
    case 2:
        check(state.close(code: .goingAway, reason: ""))
        check(state.closeTimedOut())
    case 3: check(state.transportClosed())
    default: break
    }
    check(state.transportClosed())
    require(finished, "the transport closed but the state machine did not finish")
    require(state.closeInfo != nil, "finished without close info")
    require(state.receive(bytes).isEmpty, "a finished connection still acts on bytes")
}

/// Stops the run with `message` when `condition` is false. Unlike `precondition`, the message is printed in
/// optimized builds, so a crash report says which property broke.
private func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
