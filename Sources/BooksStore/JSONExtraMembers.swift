import BooksCore
import FoundationEssentials

/// The members of the book objects in a JSON book file other than `id`, `name` and `author`
/// (`isbn`, `notes`, …), kept byte for byte so that a rewrite carries them through.
///
/// The canonical text the daemon works on has only `id|name|author` rows, so these members are
/// not part of it: a hand edit of one is kept by the next rewrite (which reads the file it
/// replaces), and reported as an update of its book through ``UnknownMemberMemory``.
struct JSONExtraMembers: Equatable {
    /// Per book id, the unknown members in file order, each as `"key": value` with the key and
    /// the value exactly as they were in the file.
    var byID: [String: [[UInt8]]] = [:]

    /// Scans `bytes`, a JSON book file that decoded as books, for unknown members.
    static func scan(_ bytes: [UInt8]) throws(JSONScanError) -> JSONExtraMembers {
        var scanner = JSONScanner(bytes: bytes)
        var result = JSONExtraMembers()
        scanner.skipSpace()
        if scanner.atEnd { return result }
        try scanner.consume(UInt8(ascii: "["))
        scanner.skipSpace()
        if scanner.peek == UInt8(ascii: "]") { return result }
        while true {
            scanner.skipSpace()
            try scanner.consume(UInt8(ascii: "{"))
            var id: String?
            var extras: [[UInt8]] = []
            scanner.skipSpace()
            if scanner.peek != UInt8(ascii: "}") {
                while true {
                    scanner.skipSpace()
                    let key = try scanner.string()
                    scanner.skipSpace()
                    try scanner.consume(UInt8(ascii: ":"))
                    scanner.skipSpace()
                    let value = try scanner.value()
                    switch try decode(bytes[key]) {
                    case "id": id = try decode(bytes[value])
                    case "name", "author": break
                    default: extras.append(Array(bytes[key]) + Array(": ".utf8) + Array(bytes[value]))
                    }
                    scanner.skipSpace()
                    if scanner.peek == UInt8(ascii: ",") {
                        scanner.advance()
                        continue
                    }
                    break
                }
            }
            try scanner.consume(UInt8(ascii: "}"))
            if let id, !extras.isEmpty { result.byID[id, default: []].append(contentsOf: extras) }
            scanner.skipSpace()
            if scanner.peek == UInt8(ascii: ",") {
                scanner.advance()
                continue
            }
            try scanner.consume(UInt8(ascii: "]"))
            return result
        }
    }

    /// The JSON file for `document`, as `BookFileFormat.json` writes it, with each book's unknown
    /// members after its `author`.
    func fileBytes(for document: BookDocument) -> [UInt8] {
        BookFileFormat.json.fileBytes(for: document, extraMembers: { byID[$0] ?? [] })
    }

    /// The string a JSON string literal (quotes included) stands for.
    static func decode(_ literal: ArraySlice<UInt8>) throws(JSONScanError) -> String? {
        guard literal.first == 0x22 else { return nil }  // not a string: no id
        if !literal.contains(0x5C) { return String(decoding: literal.dropFirst().dropLast(), as: UTF8.self) }
        do {
            return try JSONDecoder().decode(
                [String].self, from: Data([UInt8(ascii: "[")] + literal + [UInt8(ascii: "]")]))[0]
        } catch {
            throw JSONScanError(offset: literal.startIndex, detail: "undecodable string")
        }
    }
}

/// Where a JSON book file could not be scanned for unknown members.
struct JSONScanError: Error, Equatable, CustomStringConvertible {
    var offset: Int
    var detail: String
    var description: String { "\(detail) at byte \(offset)" }
}

/// Finds the extent of JSON values in bytes already known to be valid JSON.
struct JSONScanner {
    let bytes: [UInt8]
    var index = 0

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }
    mutating func advance() { index += 1 }

    mutating func skipSpace() {
        while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
    }

    mutating func consume(_ byte: UInt8) throws(JSONScanError) {
        guard peek == byte else {
            throw JSONScanError(offset: index, detail: "expected '\(Character(Unicode.Scalar(byte)))'")
        }
        index += 1
    }

    /// A string literal, quotes included.
    mutating func string() throws(JSONScanError) -> Range<Int> {
        let start = index
        try consume(0x22)
        while let b = peek {
            index += 1
            if b == 0x5C { index += 1 } else if b == 0x22 { return start..<index }
        }
        throw JSONScanError(offset: start, detail: "unterminated string")
    }

    /// Any value: a string, an object or array (nesting followed), or a number or literal.
    mutating func value() throws(JSONScanError) -> Range<Int> {
        let start = index
        switch peek {
        case 0x22:
            return try string()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while let b = peek {
                if b == 0x22 {
                    _ = try string()
                    continue
                }
                index += 1
                if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") { depth += 1 }
                if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { return start..<index }
                }
            }
            throw JSONScanError(offset: start, detail: "unterminated object or array")
        default:
            while let b = peek, b != 0x2C, b != UInt8(ascii: "}"), b != UInt8(ascii: "]"),
                b != 0x20, b != 0x0A, b != 0x0D, b != 0x09
            { index += 1 }
            guard index > start else { throw JSONScanError(offset: start, detail: "expected a value") }
            return start..<index
        }
    }
}
