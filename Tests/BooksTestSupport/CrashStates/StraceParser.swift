/// Turns `strace -f -y -v -xx -s <large>` output into completed calls, joining the
/// `<unfinished ...>` / `<... resumed>` halves of calls interrupted by another thread's line;
/// a call is placed where it completed. Signal and exit lines are skipped.
public struct StraceParser: Sendable {
    private var pending: [Int: String] = [:]

    /// A parser with no pending halves.
    public init() {}

    /// All calls of a whole trace.
    public static func calls(in text: String) throws(StraceError) -> [StraceCall] {
        var parser = StraceParser()
        var calls: [StraceCall] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let call = try parser.feed(String(line)) { calls.append(call) }
        }
        return calls
    }

    /// Feeds one line; returns the call it completes, if any.
    public mutating func feed(_ line: String) throws(StraceError) -> StraceCall? {
        var rest = Substring(line)
        var pid = 0
        let digits = rest.prefix { $0.isNumber }
        if !digits.isEmpty, rest.dropFirst(digits.count).first == " " {
            pid = Int(digits) ?? 0
            rest = rest.dropFirst(digits.count + 1)
        }
        while rest.first == " " { rest = rest.dropFirst() }
        if rest.hasPrefix("---") || rest.hasPrefix("+++") || rest.isEmpty { return nil }
        var text = String(rest)
        let unfinished = " <unfinished ...>"
        if text.hasSuffix(unfinished) {
            pending[pid] = String(text.dropLast(unfinished.count))
            return nil
        }
        if text.hasPrefix("<... ") {
            guard let close = text.firstRange(of: " resumed>") else {
                throw StraceError("unreadable resumed line: \(line)")
            }
            guard let start = pending.removeValue(forKey: pid) else { return nil }  // began before tracing
            text = start + text[close.upperBound...]
        }
        return try Self.parseCall(text, pid: pid, line: line)
    }

    static func parseCall(_ text: String, pid: Int, line: String) throws(StraceError) -> StraceCall? {
        let chars = Array(text.utf8)
        guard let open = chars.firstIndex(of: UInt8(ascii: "(")) else { return nil }
        let name = String(decoding: chars[..<open], as: UTF8.self)
        var depth = 0
        var inString = false
        var escaped = false
        var arguments: [String] = []
        var argumentStart = open + 1
        var index = open
        while index < chars.count {
            let c = chars[index]
            if inString {
                if escaped {
                    escaped = false
                } else if c == UInt8(ascii: "\\") {
                    escaped = true
                } else if c == UInt8(ascii: "\"") {
                    inString = false
                }
            } else {
                switch c {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "("), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "<"): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ">"):
                    depth -= 1
                    if depth == 0 {
                        let last = String(decoding: chars[argumentStart..<index], as: UTF8.self)
                            .trimmingSpaces()
                        if !last.isEmpty { arguments.append(last) }
                        let after = String(decoding: chars[(index + 1)...], as: UTF8.self)
                        guard let equals = after.firstRange(of: "= ") else {
                            throw StraceError("no result in: \(line)")
                        }
                        return StraceCall(
                            pid: pid, name: name, arguments: arguments, result: String(after[equals.upperBound...]))
                    }
                case UInt8(ascii: ",") where depth == 1:
                    arguments.append(String(decoding: chars[argumentStart..<index], as: UTF8.self).trimmingSpaces())
                    argumentStart = index + 1
                default: break
                }
            }
            index += 1
        }
        throw StraceError("unterminated call: \(line)")
    }

    /// The bytes of a printed string argument (`"\x61\x62"`, possibly with plain characters);
    /// throws when strace cut it (`"…"...`: raise `-s`).
    public static func bytes(ofString argument: String) throws(StraceError) -> [UInt8] {
        let chars = Array(argument.utf8)
        guard chars.first == UInt8(ascii: "\""), let end = chars.lastIndex(of: UInt8(ascii: "\"")), end > 0 else {
            throw StraceError("not a string argument: \(argument.prefix(80))")
        }
        if chars.count > end + 1, chars[(end + 1)...].starts(with: Array("...".utf8)) {
            throw StraceError("strace cut a string (raise -s): \(argument.prefix(80))")
        }
        return try unescape(chars[1..<end])
    }

    static func unescape(_ chars: ArraySlice<UInt8>) throws(StraceError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4)
        var i = chars.startIndex
        while i < chars.endIndex {
            let c = chars[i]
            guard c == UInt8(ascii: "\\"), i + 1 < chars.endIndex else {
                out.append(c)
                i += 1
                continue
            }
            let next = chars[i + 1]
            if next == UInt8(ascii: "x"), i + 3 < chars.endIndex,
                let value = UInt8(String(decoding: chars[(i + 2)...(i + 3)], as: UTF8.self), radix: 16)
            {
                out.append(value)
                i += 4
                continue
            }
            let simple: [UInt8: UInt8] = [
                UInt8(ascii: "n"): 0x0A, UInt8(ascii: "t"): 0x09, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "\\"): 0x5C,
                UInt8(ascii: "\""): 0x22, UInt8(ascii: "0"): 0,
            ]
            guard let value = simple[next] else { throw StraceError("unknown escape in a strace string") }
            out.append(value)
            i += 2
        }
        return out
    }

    /// A descriptor argument `17<\x2f…>` / `AT_FDCWD<\x2f…>`: its number (`AT_FDCWD` is -100)
    /// and the path (or `socket:[…]`) strace decorated it with.
    public static func descriptor(_ argument: String) throws(StraceError) -> (fd: Int, path: String?) {
        let number: Int
        var rest = Substring(argument)
        if rest.hasPrefix("AT_FDCWD") {
            number = -100
            rest = rest.dropFirst("AT_FDCWD".count)
        } else {
            let digits = rest.prefix { $0.isNumber || $0 == "-" }
            guard let value = Int(digits) else { throw StraceError("not a descriptor: \(argument.prefix(80))") }
            number = value
            rest = rest.dropFirst(digits.count)
        }
        let bytes = Array(rest.utf8)
        guard bytes.first == UInt8(ascii: "<"), let close = bytes.lastIndex(of: UInt8(ascii: ">")), close > 0 else {
            return (number, nil)
        }
        return (number, String(decoding: try unescape(bytes[1..<close]), as: UTF8.self))
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
