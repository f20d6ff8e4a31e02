import BooksTestSupport

@testable import BooksCore

enum Samples {
    /// Pieces that stress the format: separators, escapes, line ends, Unicode of every kind.
    static let pieces = [
        "a", "Dune", " ", "|", "\\", "\n", "\r", "\t", "\\|", "\\n", "|\\", "🦄", "👩‍👩‍👧", "e\u{301}",
        "é", "שלום", "مرحبا", "中文", "\u{200F}", "#", "\"", "x\r\n", "\u{0}",
    ]

    static func randomString(_ rng: inout SplitMix64, maxPieces: Int = 6) -> String {
        var s = ""
        for _ in 0..<Int.random(in: 0...maxPieces, using: &rng) { s += pieces.randomElement(using: &rng)! }
        if Int.random(in: 0..<50, using: &rng) == 0 { s += String(repeating: "long", count: 2_000) }
        return s
    }

    static func file(_ rows: [String], crlf: Bool = false) -> [UInt8] {
        Array(rows.map { $0 + (crlf ? "\r\n" : "\n") }.joined().utf8)
    }
}
