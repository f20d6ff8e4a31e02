/// Why `subscribe` cannot start as asked: a bad `--since`, an unusable `--cursor-file`, or an
/// `--exec` that cannot be set up. Printed as `booksctl: DESCRIPTION`.
struct SubscribeFailure: Error, Equatable, CustomStringConvertible {
    var description: String
}
