extension Duration {
    /// How long a test waits in real time for something that must happen before it fails instead of hanging the
    /// run. Only a bug waits it out, so it is far beyond a stall of the machine: a whole-suite run on two cores has
    /// held dozens of tests off the CPU for a minute at once. A bound whose expiry is the behaviour under test is
    /// not a hang guard: such tests move a virtual clock, or wait for an expiry that is the only possible outcome.
    public static let hangGuard: Duration = .seconds(120)
}
