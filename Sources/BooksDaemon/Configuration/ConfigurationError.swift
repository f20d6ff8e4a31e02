/// Why a configuration file could not be loaded. Every case that comes from a file carries the
/// 1-based line number; `description` is one line suitable for stderr and `--check-config`.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadableFile(path: String, reason: String)
    /// The file is not valid UTF-8.
    case invalidEncoding(path: String)
    /// A non-comment line is not `key = value` (or has an unterminated quote / trailing text).
    case syntax(line: Int, text: String, problem: String)
    /// The key is not one of `ConfigurationKey`.
    case unknownKey(line: Int, key: String)
    /// The key appears a second time.
    case duplicateKey(line: Int, key: String, firstLine: Int)
    /// The value does not parse or is out of range.
    case invalidValue(line: Int, key: String, value: String, expected: String)
    /// A user name in `writer_users` does not exist.
    case unknownUser(line: Int, key: String, name: String)
    /// A group name in `writer_groups` does not exist.
    case unknownGroup(line: Int, key: String, name: String)
    /// A `store NAME = PATH [FORMAT]` line is invalid (name, duplicate, format).
    case store(line: Int, StoreConfigurationError)

    /// One line, e.g. `line 7: unknown key "sokcet"`.
    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): "cannot read configuration file \(path): \(reason)"
        case .invalidEncoding(let path): "configuration file \(path) is not valid UTF-8"
        case .syntax(let line, let text, let problem): "line \(line): \(problem): \(text)"
        case .unknownKey(let line, let key):
            "line \(line): unknown key \"\(key)\" (see booksd.conf(5) for the list of keys)"
        case .duplicateKey(let line, let key, let first):
            "line \(line): duplicate key \"\(key)\" (first set on line \(first))"
        case .invalidValue(let line, let key, let value, let expected):
            "line \(line): invalid value \"\(value)\" for \(key): expected \(expected)"
        case .unknownUser(let line, let key, let name): "line \(line): \(key): no such user \"\(name)\""
        case .unknownGroup(let line, let key, let name): "line \(line): \(key): no such group \"\(name)\""
        case .store(let line, let error): line > 0 ? "line \(line): \(error)" : "\(error)"
        }
    }
}
