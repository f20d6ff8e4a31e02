import BooksTestSupport

/// Generates realistic `books.txt` content: UUID ids, mostly ASCII titles and authors, with some
/// accented Latin, CJK and emoji text. Deterministic for a given seed.
struct BookFileGenerator {
    static let seed: UInt64 = 0x426F_6F6B_5379_6E63  // "BookSync"

    private static let words = [
        "The", "Last", "Garden", "of", "Winter", "Night", "River", "House", "Silent",
        "Empire", "Stars", "Memory", "Glass", "Iron", "City", "Ocean", "Shadow", "Light",
        "Secret", "History", "Song", "Fire", "Journey", "Paper", "Kingdom", "Dream",
    ]
    private static let accentedWords = [
        "Café", "Élan", "Mañana", "Über", "Crème", "Fräulein", "Señor",
        "Niño", "Åland", "Garçon", "Smørrebrød", "Déjà",
    ]
    private static let cjkTitles = [
        "三体", "雪国", "吾輩は猫である", "노르웨이의 숲", "百年の孤独", "紅樓夢",
        "海辺のカフカ", "活着",
    ]
    private static let emoji = ["📚", "🌙", "🔥", "🌊", "✨", "🦊"]
    private static let firstNames = [
        "Ada", "Jane", "Mark", "Olga", "Chinua", "Toni", "Jorge", "Ursula",
        "Haruki", "Gabriel", "Virginia", "Italo", "Clarice", "Naguib",
    ]
    private static let accentedNames = ["José", "Zoë", "Håkon", "Søren", "François", "Émile", "Małgorzata"]
    private static let lastNames = [
        "Austen", "Twain", "Tokarczuk", "Achebe", "Morrison", "Borges", "Le Guin",
        "Murakami", "García Márquez", "Woolf", "Calvino", "Lispector", "Mahfouz",
    ]
    private static let cjkAuthors = ["刘慈欣", "川端康成", "夏目漱石", "한강", "曹雪芹", "余华"]

    private var random: SplitMix64

    /// A generator of the stream `seed` (the default: the stream every benchmark file is made of).
    init(seed: UInt64 = BookFileGenerator.seed) { random = SplitMix64(seed: seed) }

    /// `rows` book rows, each `uuid|name|author\n`.
    mutating func file(rows: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rows * 64)
        for _ in 0..<rows { appendRow(to: &out) }
        return out
    }

    /// One more row (`uuid|name|author\n`), from the same stream.
    mutating func row() -> [UInt8] {
        var out: [UInt8] = []
        appendRow(to: &out)
        return out
    }

    private mutating func appendRow(to out: inout [UInt8]) {
        appendUUID(to: &out)
        out.append(UInt8(ascii: "|"))
        out.append(contentsOf: title().utf8)
        out.append(UInt8(ascii: "|"))
        out.append(contentsOf: author().utf8)
        out.append(0x0A)
    }

    private mutating func appendUUID(to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        var high = random.next()
        var low = random.next()
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000  // variant 10
        for k in 0..<32 {
            if k == 8 || k == 12 || k == 16 || k == 20 { out.append(UInt8(ascii: "-")) }
            let word = k < 16 ? high : low
            let shift = UInt64(60 - 4 * (k % 16))
            out.append(hex[Int((word >> shift) & 0xF)])
        }
    }

    private mutating func pick(_ list: [String]) -> String {
        list[Int(random.next() % UInt64(list.count))]
    }

    private mutating func title() -> String {
        let roll = random.next() % 100
        if roll < 6 { return pick(Self.cjkTitles) }
        var parts: [String] = []
        let count = 2 + Int(random.next() % 3)
        for k in 0..<count {
            parts.append(roll < 20 && k == 1 ? pick(Self.accentedWords) : pick(Self.words))
        }
        if roll >= 97 { parts.append(pick(Self.emoji)) }
        return parts.joined(separator: " ")
    }

    private mutating func author() -> String {
        let roll = random.next() % 100
        if roll < 6 { return pick(Self.cjkAuthors) }
        let first = roll < 18 ? pick(Self.accentedNames) : pick(Self.firstNames)
        return first + " " + pick(Self.lastNames)
    }
}
