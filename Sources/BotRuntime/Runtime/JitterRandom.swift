/// The random source of a session's backoff jitter: SplitMix64, seeded from `BotRuntimeEnvironment.randomSeed`
/// (reproducible tests) or from the system, mixed with the bot's name so bots of one process spread out.
struct JitterRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64?, botName: String) {
        var mixed = seed ?? UInt64.random(in: .min ... .max)
        for byte in botName.utf8 { mixed = (mixed ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        state = mixed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
