import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One figure of a scenario, for each runtime that produced it, with the goal it is held to.
struct Figure: Codable, Sendable {
    var name: String
    var unit: String
    /// By runtime (`swift`, `python`, `c`).
    var values: [String: Double]
    /// The goal, in words (`≥ 20,000`), when the issue sets one.
    var goal: String?
    /// Whether the Swift figure meets the goal.
    var goalMet: Bool?

    init(_ name: String, unit: String, _ values: [String: Double], goal: String? = nil, met: Bool? = nil) {
        self.name = name
        self.unit = unit
        self.values = values
        self.goal = goal
        self.goalMet = met
    }
}

/// What a scenario run produced: the figures, where they were measured, and what was observed.
struct BenchReport: Codable, Sendable {
    var scenario: String
    var date: String
    var machine: MachineDescription
    /// Which server the figures were measured against, and how it was run.
    var server: String
    var parameters: [String: String]
    var figures: [Figure]
    /// Bottleneck, anomalies, anything a reader of the figures needs.
    var notes: [String]

    /// The table printed on stdout.
    func table() -> String {
        // The runtimes' columns, then any other (the sandbox scenario's figures are the server's own), then Swift's
        // ratio to each other runtime present: to the Python peer, and to the C floor.
        let known = Self.runtimeColumns
        let others = Set(figures.flatMap(\.values.keys)).subtracting(known).sorted()
        let runtimes = known.filter { runtime in figures.contains { $0.values[runtime] != nil } } + others
        let ratios = Self.ratioColumns(runtimes)
        var rows: [[String]] = [["figure", "unit"] + runtimes + ratios.map { "\($0)/\($1)" } + ["goal"]]
        for figure in figures {
            var row = [figure.name, figure.unit]
            for runtime in runtimes { row.append(figure.values[runtime].map(Self.format) ?? "–") }
            for (numerator, denominator) in ratios {
                if let top = figure.values[numerator], let bottom = figure.values[denominator], bottom != 0 {
                    row.append(String(format: "%.2f×", top / bottom))
                } else {
                    row.append("")
                }
            }
            if let goal = figure.goal {
                row.append(goal + (figure.goalMet.map { $0 ? "  met" : "  MISSED" } ?? ""))
            } else {
                row.append("")
            }
            rows.append(row)
        }
        var widths = Array(repeating: 0, count: rows[0].count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        var lines: [String] = []
        lines.append("== chatter-bench \(scenario) · \(date)")
        lines.append("machine: \(machine.summary)")
        lines.append("server:  \(server)")
        if !parameters.isEmpty {
            lines.append("parameters: " + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        for (number, row) in rows.enumerated() {
            let cells = row.enumerated().map { index, cell -> String in
                let padding = String(repeating: " ", count: widths[index] - cell.count)
                return index < 2 || index == row.count - 1 ? cell + padding : padding + cell
            }
            lines.append(cells.joined(separator: "  "))
            if number == 0 { lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
        for note in notes { lines.append("· " + note) }
        return lines.joined(separator: "\n")
    }

    /// The runtimes' columns, in this order: the Swift runtime, the Python peer, the C floor.
    static let runtimeColumns = ["swift", "python", "c"]

    /// The ratio columns of a table with `columns`: Swift over each other runtime present (`swift/python`,
    /// `swift/c`), none when Swift is absent or the columns are not runtimes (the sandbox scenario's).
    static func ratioColumns(_ columns: [String]) -> [(String, String)] {
        guard columns.contains("swift"), columns.allSatisfy(runtimeColumns.contains) else { return [] }
        return columns.filter { $0 != "swift" }.map { ("swift", $0) }
    }

    /// Writes the report as JSON to `path`, creating its directory.
    func write(to path: String) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url)
    }

    static func format(_ value: Double) -> String {
        if value == value.rounded() && abs(value) < 1e15 {
            return Self.grouped(Int(value))
        }
        if abs(value) >= 100 { return Self.grouped(Int(value.rounded())) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        if abs(value) >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.3f", value)
    }

    private static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }
}

/// The machine the figures come from (and how busy it was: other work skews every figure).
struct MachineDescription: Codable, Sendable {
    var cpuModel: String
    var cores: Int
    var memoryMiB: Int
    var kernel: String
    /// The 1-minute load average when the scenario began.
    var loadAverage: Double
    /// Seconds since a bench run deleted its files, when that was recent enough to slow creating files
    /// (``FileDeletionRecord``): start-up figures are then not comparable with a run on a settled file system.
    var secondsSinceBenchDeletedFiles: Int?

    static func current() -> MachineDescription {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let memory = meminfo.split(separator: "\n").first { $0.hasPrefix("MemTotal:") }
            .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first }
            .flatMap { Int($0) } ?? 0
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        var loads = [Double](repeating: 0, count: 3)
        getloadavg(&loads, 3)
        return MachineDescription(
            cpuModel: model, cores: ProcessInfo.processInfo.activeProcessorCount, memoryMiB: memory / 1024,
            kernel: "Linux \(release)", loadAverage: loads[0],
            secondsSinceBenchDeletedFiles: FileDeletionRecord.user.secondsSinceDeletion())
    }

    var summary: String {
        let machine = "\(cpuModel), \(cores) cores, \(memoryMiB) MiB, \(kernel), "
            + "load average \(String(format: "%.2f", loadAverage)) at start"
        guard let seconds = secondsSinceBenchDeletedFiles else { return machine }
        return machine + "\nwarning: a bench run deleted its files \(seconds) s ago; until \(Int(FileDeletionRecord.window)) s "
            + "have passed, creating files is slower on ext4 without a journal and start-up figures pay for it "
            + "(use --keep: bench/README.md, \"Files deleted lately\")"
    }
}
