/// Why `booksd`'s arguments could not be parsed (a usage error: exit status 2).
public enum CommandLineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The flag is not one `booksd` knows.
    case unknownOption(String)
    /// The flag needs a value and none followed it.
    case missingValue(option: String)
    /// The flag's value is not acceptable.
    case invalidValue(option: String, value: String, expected: String)
    /// A flag that takes no value was given one (`--help=x`).
    case unexpectedValue(option: String)
    /// `booksd` takes no positional arguments.
    case unexpectedArgument(String)
    /// A value flag was given twice.
    case duplicateOption(String)

    /// One line, e.g. `unknown option "--sokcet"`.
    public var description: String {
        switch self {
        case .unknownOption(let o): "unknown option \"\(o)\""
        case .missingValue(let o): "option \(o) requires a value"
        case .invalidValue(let o, let v, let e): "invalid value \"\(v)\" for \(o): expected \(e)"
        case .unexpectedValue(let o): "option \(o) takes no value"
        case .unexpectedArgument(let a): "unexpected argument \"\(a)\" (booksd takes no positional arguments)"
        case .duplicateOption(let o): "option \(o) given more than once"
        }
    }
}
