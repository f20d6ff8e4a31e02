import Glibc

/// A parsed `booksd.conf`: `key = value` lines, `#` comment lines and blank lines.
///
/// Syntax: leading/trailing spaces and tabs are ignored; a line whose first non-blank character is
/// `#` is a comment (there are no trailing comments); a value may be wrapped in double quotes, in
/// which case `\"` and `\\` are the only escapes and nothing but blanks may follow the closing
/// quote. Keys are case-sensitive. Parsing guarantees every key is known and appears once; values
/// are checked by `apply(to:resolver:)`.
public struct ConfigurationFile: Sendable, Equatable {
    /// One `key = value` assignment.
    public struct Entry: Sendable, Equatable {
        /// 1-based line number in the file.
        public var line: Int
        /// The key.
        public var key: ConfigurationKey
        /// The value with surrounding blanks and quotes removed and escapes resolved.
        public var value: String
    }

    /// Assignments in file order.
    public var entries: [Entry]
    /// `store NAME = PATH [FORMAT]` lines in file order, with their line numbers.
    public var stores: [(line: Int, spec: StoreSpec)] = []
    /// `replica NAME = PATH [FORMAT]` lines in file order, with their line numbers.
    public var replicas: [(line: Int, spec: StoreSpec)] = []

    /// Compares entries and stores.
    public static func == (lhs: ConfigurationFile, rhs: ConfigurationFile) -> Bool {
        lhs.entries == rhs.entries && lhs.stores.map(\.line) == rhs.stores.map(\.line)
            && lhs.stores.map(\.spec) == rhs.stores.map(\.spec) && lhs.replicas.map(\.line) == rhs.replicas.map(\.line)
            && lhs.replicas.map(\.spec) == rhs.replicas.map(\.spec)
    }

    /// Parses configuration text.
    /// - Throws: `.syntax`, `.unknownKey` or `.duplicateKey`, with the 1-based line number.
    public static func parse(_ text: String) throws(ConfigurationError) -> ConfigurationFile {
        var entries: [Entry] = []
        var stores: [(line: Int, spec: StoreSpec)] = []
        var replicas: [(line: Int, spec: StoreSpec)] = []
        var firstLine: [ConfigurationKey: Int] = [:]
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = String(rawLine).trimmingSpaces()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let eq = line.firstIndex(of: "=") else {
                throw .syntax(line: number, text: line, problem: "expected \"key = value\"")
            }
            let keyText = String(line[..<eq]).trimmingSpaces()
            guard !keyText.isEmpty else { throw .syntax(line: number, text: line, problem: "missing key before \"=\"") }
            if keyText.hasPrefix("store "), keyText != "store " {
                let value = try unquote(
                    String(line[line.index(after: eq)...]).trimmingSpaces(), line: number, text: line)
                stores.append((number, try storeSpec(name: keyText, value: value, line: number)))
                continue
            }
            if keyText.hasPrefix("replica "), keyText != "replica " {
                let value = try unquote(
                    String(line[line.index(after: eq)...]).trimmingSpaces(), line: number, text: line)
                let name = "store " + keyText.dropFirst("replica ".count)
                replicas.append((number, try storeSpec(name: name, value: value, line: number)))
                continue
            }
            guard let key = ConfigurationKey(rawValue: keyText) else { throw .unknownKey(line: number, key: keyText) }
            if let first = firstLine[key] { throw .duplicateKey(line: number, key: keyText, firstLine: first) }
            firstLine[key] = number
            let value = try unquote(String(line[line.index(after: eq)...]).trimmingSpaces(), line: number, text: line)
            entries.append(Entry(line: number, key: key, value: value))
        }
        return ConfigurationFile(entries: entries, stores: stores, replicas: replicas)
    }

    /// Reads and parses the file at `path`.
    /// - Throws: `.unreadableFile`, `.invalidEncoding`, or any error of `parse(_:)`.
    public static func load(path: String) throws(ConfigurationError) -> ConfigurationFile {
        try parse(readText(path: path))
    }

    /// `base` with every entry applied in file order.
    /// - Throws: `.invalidValue`, `.unknownUser`, `.unknownGroup` for the first bad entry.
    public func apply(
        to base: DaemonConfiguration = DaemonConfiguration(),
        resolver: AccountResolver = .system
    ) throws(ConfigurationError) -> DaemonConfiguration {
        var config = base
        for entry in entries {
            try entry.key.apply(entry.value, line: entry.line, to: &config, resolver: resolver)
        }
        for (line, spec) in stores {
            if let other = config.stores.first(where: { $0.name == spec.name }) {
                throw .store(line: line, .duplicateName(spec.name, existingPath: other.path))
            }
            config.stores.append(spec)
        }
        for (line, spec) in replicas {
            if let other = config.stores.first(where: { $0.name == spec.name }) {
                throw .store(line: line, .duplicateName(spec.name, existingPath: other.path))
            }
            config.stores.append(spec)
            config.replicaStores.insert(spec.name)
        }
        return config
    }

    static func unquote(_ value: String, line: Int, text: String) throws(ConfigurationError) -> String {
        guard value.hasPrefix("\"") else { return value }
        var result = ""
        var iterator = value.dropFirst().makeIterator()
        while let c = iterator.next() {
            switch c {
            case "\\":
                guard let escaped = iterator.next(), escaped == "\"" || escaped == "\\" else {
                    throw .syntax(
                        line: line, text: text, problem: "only \\\" and \\\\ are allowed escapes in a quoted value")
                }
                result.append(escaped)
            case "\"":
                var rest = ""
                while let r = iterator.next() { rest.append(r) }
                guard rest.trimmingSpaces().isEmpty else {
                    throw .syntax(line: line, text: text, problem: "unexpected text after the closing quote")
                }
                return result
            default:
                result.append(c)
            }
        }
        throw .syntax(line: line, text: text, problem: "unterminated quoted value")
    }

    /// The UTF-8 text of the file at `path` (at most 16 MiB).
    /// - Throws: `.unreadableFile` (with the errno text) or `.invalidEncoding`.
    public static func readText(path: String) throws(ConfigurationError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .unreadableFile(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadableFile(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > 16 << 20 { throw .unreadableFile(path: path, reason: "file larger than 16 MiB") }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidEncoding(path: path) }
        return text
    }
}
