#if canImport(Glibc)
import Glibc
#endif

/// ANSI styling, active only when stdout is a terminal and `NO_COLOR` is unset.
struct Style: Sendable {
    /// Whether escapes are emitted.
    let enabled: Bool

    /// The style for stdout: colour only on a terminal without `NO_COLOR`.
    static func forStandardOutput() -> Style {
        Style(enabled: OutputWriter.standardOutput.isTerminal && getenv("NO_COLOR") == nil)
    }

    func bold(_ s: String) -> String { wrap(s, "1") }
    func dim(_ s: String) -> String { wrap(s, "2") }
    func green(_ s: String) -> String { wrap(s, "32") }
    func yellow(_ s: String) -> String { wrap(s, "33") }
    func red(_ s: String) -> String { wrap(s, "31") }

    private func wrap(_ s: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s
    }
}
