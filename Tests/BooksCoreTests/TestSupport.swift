@testable import BooksCore

/// A small deterministic generator so failures reproduce from the printed seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Samples {
    /// Pieces that stress the format: separators, escapes, line ends, Unicode of every kind.
    static let pieces = ["a", "Dune", " ", "|", "\\", "\n", "\r", "\t", "\\|", "\\n", "|\\", "🦄", "👩‍👩‍👧", "e\u{301}",
                         "é", "שלום", "مرحبا", "中文", "\u{200F}", "#", "\"", "x\r\n", "\u{0}"]

    static func randomString(_ rng: inout SeededGenerator, maxPieces: Int = 6) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...maxPieces, using: &rng) { s += pieces.randomElement(using: &rng)! }
        if Int.random(in: 0..<50, using: &rng) == 0 { s += String(repeating: "long", count: 2_000) }
        return s
    }

    static func file(_ rows: [String], crlf: Bool = false) -> [UInt8] {
        Array(rows.map { $0 + (crlf ? "\r\n" : "\n") }.joined().utf8)
    }
}
