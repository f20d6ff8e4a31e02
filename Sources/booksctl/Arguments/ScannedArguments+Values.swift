import BooksProtocol
import FoundationEssentials

/// Reading a command's values from its scanned arguments: every malformed value is a
/// `UsageError` naming the command (`fail`), with the forms accepted.
extension ScannedArguments {
    /// Whether flag `--long` was given.
    func flag(_ long: String) -> Bool { flags.contains(long) }

    /// A usage error of this command.
    func fail(_ message: String) -> UsageError { UsageError(message: message, command: command) }

    /// Exactly the positionals `spec` names (none empty when its name ends in ID).
    func fixedPositionals(_ spec: CommandSpec) throws(UsageError) -> [String] {
        let wanted = spec.positionals.count
        if positionals.count < wanted { throw fail("missing argument \(spec.positionals[positionals.count].name)") }
        if positionals.count > wanted { throw fail("unexpected argument '\(positionals[wanted])'") }
        for (value, positional) in zip(positionals, spec.positionals)
        where value.isEmpty && positional.name.hasSuffix("ID") {
            throw fail("\(positional.name) must not be empty")
        }
        return positionals
    }

    /// The positionals named `name` (`ID…`, `FILE…`), none empty; at least one unless `required` is false.
    func nonEmptyPositionals(_ name: String, required: Bool = true) throws(UsageError) -> [String] {
        guard !required || !positionals.isEmpty else { throw fail("missing argument \(name)") }
        if let empty = positionals.firstIndex(of: "") { throw fail("\(name) \(empty + 1) must not be empty") }
        return positionals
    }

    /// A non-negative integer given to `option`.
    func count(_ text: String, _ option: String) throws(UsageError) -> Int {
        guard let value = Int(text), value >= 0 else {
            throw fail("\(option) needs a non-negative integer, not '\(text)'")
        }
        return value
    }

    /// `--expect-version V`, if given.
    func expectedVersion() throws(UsageError) -> UInt64? {
        guard let text = values["expect-version"] else { return nil }
        guard let value = UInt64(text) else { throw fail("--expect-version needs a version number, not '\(text)'") }
        return value
    }

    /// A WHEN (``HistoryPoint``) given to `option`, read now in the local time zone.
    func when(_ text: String, _ option: String) throws(UsageError) -> HistoryPoint {
        do throws(HistoryPointError) {
            return try HistoryPoint.parse(text, now: Date(), zone: .system)
        } catch {
            throw fail("\(option): \(error.description)")
        }
    }

    /// A change set's seq (positive).
    func seq(_ text: String) throws(UsageError) -> UInt64 {
        guard let value = UInt64(text), value > 0 else {
            throw fail("SEQ is a change set's number (as log prints it), not '\(text)'")
        }
        return value
    }
}
