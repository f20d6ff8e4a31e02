/// A strict, allocation-light reader of JSON values over a byte buffer, for `FastMessageDecoder`.
///
/// Every method returns nil (or false) on anything that is not valid JSON of the expected kind,
/// leaving the caller to give up; none of them traps on any input. Strings are validated as
/// UTF-8, raw control characters are refused, `\uXXXX` escapes must form valid scalars (a lone
/// surrogate is refused), numbers follow the JSON grammar, and nesting is bounded.
struct JSONScanner {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private(set) var index = 0
    /// How deep `skipValue` may nest.
    static let maxDepth = 64

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        // An empty buffer has no base address; any valid pointer with `end == 0` reads nothing.
        base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
        end = buffer.count
    }

    var isAtEnd: Bool { index >= end }

    /// Skips spaces, tabs, carriage returns and line feeds.
    mutating func skipWhitespace() {
        while index < end {
            switch base[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Skips whitespace, then consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < end, base[index] == byte else { return false }
        index += 1
        return true
    }

    /// Consumes `null` if it is next.
    mutating func consumeNull() -> Bool {
        skipWhitespace()
        return literal("null")
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard end - index >= count else { return false }
        for k in 0..<count where base[index + k] != word.utf8Start[k] { return false }
        index += count
        return true
    }

    mutating func bool() -> Bool? {
        skipWhitespace()
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// Iterates an object's members: `body` gets each key and must consume its value.
    mutating func object(_ body: (inout JSONScanner, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            skipWhitespace()
            guard let key = string(), consume(UInt8(ascii: ":")), body(&self, key) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// Iterates an array's elements: `body` must consume each element.
    mutating func array(_ body: (inout JSONScanner) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "[")) else { return false }
        if consume(UInt8(ascii: "]")) { return true }
        repeat {
            guard body(&self) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]"))
    }

    /// A string value.
    mutating func string() -> String? {
        skipWhitespace()
        guard index < end, base[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < end {
            let b = base[index]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 { break }
            index += 1
        }
        guard index < end, base[index] >= 0x20 else { return nil }
        if base[index] == UInt8(ascii: "\"") {
            let text = String(validating: UnsafeBufferPointer(start: base + start, count: index - start), as: UTF8.self)
            index += 1
            return text
        }
        var bytes = Array(UnsafeBufferPointer(start: base + start, count: index - start))
        while index < end {
            let b = base[index]
            index += 1
            if b == UInt8(ascii: "\"") { return String(validating: bytes, as: UTF8.self) }
            if b < 0x20 { return nil }
            if b != UInt8(ascii: "\\") {
                bytes.append(b)
                continue
            }
            guard index < end else { return nil }
            let escape = base[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
            case UInt8(ascii: "b"): bytes.append(0x08)
            case UInt8(ascii: "f"): bytes.append(0x0C)
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = unicodeEscape() else { return nil }
                UTF8.encode(scalar) { bytes.append($0) }
            default: return nil
            }
        }
        return nil
    }

    /// The scalar of a `\u` escape whose `\u` was consumed; a surrogate pair takes two escapes.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if (0xDC00...0xDFFF).contains(high) { return nil }
        guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
        guard end - index >= 6, base[index] == UInt8(ascii: "\\"), base[index + 1] == UInt8(ascii: "u") else {
            return nil
        }
        index += 2
        guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hex4() -> UInt32? {
        guard end - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = base[index]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// A non-negative integer without fraction or exponent that fits `UInt64`.
    mutating func unsigned() -> UInt64? {
        skipWhitespace()
        return magnitude()
    }

    /// The digits of an integer starting right here (no whitespace: JSON allows none after a `-`).
    private mutating func magnitude() -> UInt64? {
        let start = index
        var value: UInt64 = 0
        while index < end, base[index] >= UInt8(ascii: "0"), base[index] <= UInt8(ascii: "9") {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(base[index] - UInt8(ascii: "0")))
            guard !o1, !o2 else { return nil }
            value = sum
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits == 1 || base[start] != UInt8(ascii: "0") else { return nil }
        if index < end, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(base[index]) { return nil }
        return value
    }

    /// An integer without fraction or exponent that fits `Int`.
    mutating func signed() -> Int? {
        skipWhitespace()
        let negative = index < end && base[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard let magnitude = magnitude() else { return nil }
        if negative { return magnitude <= UInt64(Int.max) + 1 ? Int(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int.max) ? Int(magnitude) : nil
    }

    /// Skips one value of any kind (checking its syntax).
    mutating func skipValue(depth: Int = 0) -> Bool {
        guard depth < Self.maxDepth else { return false }
        skipWhitespace()
        guard index < end else { return false }
        switch base[index] {
        case UInt8(ascii: "\""): return string() != nil
        case UInt8(ascii: "{"): return object { scanner, _ in scanner.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): return array { $0.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return bool() != nil
        case UInt8(ascii: "n"): return consumeNull()
        default: return number()
        }
    }

    /// Skips a number (JSON grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`).
    private mutating func number() -> Bool {
        if index < end, base[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ s: inout JSONScanner) -> Int {
            let start = s.index
            while s.index < s.end, s.base[s.index] >= UInt8(ascii: "0"), s.base[s.index] <= UInt8(ascii: "9") {
                s.index += 1
            }
            return s.index - start
        }
        let first = index
        let whole = digits(&self)
        guard whole > 0, whole == 1 || base[first] != UInt8(ascii: "0") else { return false }
        if index < end, base[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(&self) > 0 else { return false }
        }
        if index < end, base[index] == UInt8(ascii: "e") || base[index] == UInt8(ascii: "E") {
            index += 1
            if index < end, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") { index += 1 }
            guard digits(&self) > 0 else { return false }
        }
        return true
    }
}
