import Glibc

/// Writes each record as one plain line to stderr with a single `write(2)`:
///
///     2026-11-30T08:00:00.123Z booksd[4242] info: message books_file=/srv/books.txt books_seq=7
///
/// Field keys are lowercased and sorted; values containing spaces, quotes, `=` or control
/// characters are double-quoted with escapes; newlines in the message are escaped as `\n`, so a
/// record is always exactly one line. Lines from concurrent threads never interleave (one write each,
/// below `PIPE_BUF` for typical lines; longer lines are still written by a single call when possible).
public struct StderrLogBackend: LogBackend {
    /// The program name shown before `[pid]`.
    public let identifier: String
    private let fd: Int32

    /// Creates a backend writing to `fileDescriptor` (default: stderr).
    public init(identifier: String = "booksd", fileDescriptor: Int32 = STDERR_FILENO) {
        self.identifier = identifier
        self.fd = fileDescriptor
    }

    /// Formats and writes one line; write errors are ignored.
    public func write(level: LogLevel, message: String, fields: [String: String]) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        let line = Self.formatLine(
            level: level, message: message, fields: fields,
            seconds: Int(ts.tv_sec), milliseconds: Int(ts.tv_nsec / 1_000_000),
            identifier: identifier, pid: getpid())
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += n
            }
        }
    }

    /// The exact line (including the trailing newline) written for a record at the given UTC time.
    public static func formatLine(
        level: LogLevel, message: String, fields: [String: String],
        seconds: Int, milliseconds: Int, identifier: String, pid: Int32
    ) -> String {
        var line = timestamp(seconds: seconds, milliseconds: milliseconds)
        line += " \(identifier)[\(pid)] \(level.rawValue): "
        line += escapeMessage(message)
        for key in fields.keys.sorted() {
            line += " \(key.lowercased())=\(quoteValue(fields[key]!))"
        }
        line += "\n"
        return line
    }

    /// ISO 8601 UTC timestamp with milliseconds, e.g. `2026-11-30T08:00:00.123Z`.
    public static func timestamp(seconds: Int, milliseconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(milliseconds), 3))Z"
    }

    static func escapeMessage(_ s: String) -> String {
        var out = ""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    out += "\\x" + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    static func quoteValue(_ s: String) -> String {
        let needsQuotes =
            s.isEmpty
            || s.unicodeScalars.contains {
                $0 == " " || $0 == "\"" || $0 == "=" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7f
            }
        guard needsQuotes else { return s }
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default: out += escapeMessage(String(scalar))
            }
        }
        return out + "\""
    }
}
