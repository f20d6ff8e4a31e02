/// Why `subscribe` cannot start as asked: a bad `--since`, an unusable `--cursor-file`, or an
/// `--exec` that cannot be set up. Printed as `booksctl: DESCRIPTION`.
struct SubscribeFailure: Error, Equatable, CustomStringConvertible {
    var description: String
}

extension SubscribeFailure {
    /// What `make` returns, or nil once its failure is printed to `err` as `booksctl: DESCRIPTION`
    /// (each line escaped, so a hint stays on a line of its own).
    static func reported<Value>(to err: OutputWriter, _ make: () throws(SubscribeFailure) -> Value) -> Value? {
        do throws(SubscribeFailure) {
            return try make()
        } catch {
            error.print(to: err)
            return nil
        }
    }

    /// Prints `booksctl: DESCRIPTION` to `err`, each line escaped.
    func print(to err: OutputWriter) {
        err.line("booksctl: \(TextCell.escapeLines(description))")
    }
}
