/// "Did you mean …?" for mistyped commands and options (pure).
enum Suggestion {
    /// The edit distance between `a` and `b` (insertions, deletions, substitutions, and the swap
    /// of two adjacent characters, as in a typo: `lsit` is 1 from `list`), by Unicode scalars.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars)
        let b = Array(b.unicodeScalars)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// The candidates closest to `word` within a third of its length (at least 2, at most 3) or that
    /// it is a prefix of, best first (ties in `candidates` order).
    static func closest(to word: String, among candidates: [String]) -> [String] {
        let limit = min(3, max(2, word.count / 3))
        let scored = candidates.compactMap { candidate -> (String, Int)? in
            if word.count >= 2, candidate.hasPrefix(word) { return (candidate, 0) }
            let distance = editDistance(word, candidate)
            return distance <= limit ? (candidate, distance) : nil
        }
        let best = scored.map(\.1).min()
        return scored.filter { $0.1 == best }.map(\.0)
    }

    /// ` (did you mean 'a' or 'b'?)`, or an empty string.
    static func hint(_ names: [String]) -> String {
        guard !names.isEmpty else { return "" }
        return " (did you mean " + names.map { "'\($0)'" }.joined(separator: " or ") + "?)"
    }

    /// The message for an unknown command.
    static func unknownCommand(_ name: String) -> String {
        "unknown command '\(name)'" + hint(closest(to: name, among: CommandCatalog.all.map(\.name)))
    }

    /// The message for an unknown option `token` (`--x`, `--x=v` or `-x`) of `spec`.
    static func unknownOption(_ token: String, spec: CommandSpec) -> String {
        let bare = String(token.drop { $0 == "-" }.prefix { $0 != "=" })
        let names = spec.options.map { "--" + $0.long } + ["--socket", "--help"]
        let close = closest(to: bare, among: names.map { String($0.dropFirst(2)) }).map { "--" + $0 }
        return "unknown option \(token)" + hint(close)
    }
}
