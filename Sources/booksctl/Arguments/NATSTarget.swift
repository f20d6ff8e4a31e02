import BooksNATS
import Glibc

/// `--nats URL[,URL…]` (anywhere on the line) or `BOOKS_NATS`: talk to booksd through NATS
/// instead of its Unix socket. `--nats-creds FILE`, `--nats-user USER`, `--nats-password PW`,
/// `--nats-token TOKEN` (or `BOOKS_NATS_CREDS`, …) and `--nats-prefix P` (default `books`) go
/// with it; the store is the command line's `--store NAME` (or `BOOKS_STORE`, default `default`),
/// which `CommandLineParser` reads for both transports.
struct NATSTarget: Sendable, Equatable {
    var options: NATSConnectOptions
    var prefix = "books"
    var store = "default"

    /// Removes the NATS options from `arguments`; `target` is nil when neither `--nats` nor
    /// `BOOKS_NATS` is given.
    static func extract(
        from arguments: [String], environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) throws(UsageError) -> (target: NATSTarget?, rest: [String]) {
        var values: [NATSOption: String] = [:]
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            guard token.hasPrefix("--"),
                let option = NATSOption.allCases.first(where: {
                    token == "--\($0.rawValue)" || token.hasPrefix("--\($0.rawValue)=")
                })
            else {
                rest.append(token)
                continue
            }
            let name = option.rawValue
            if token.count > name.count + 2 {
                values[option] = String(token.dropFirst(name.count + 3))
            } else {
                guard index < arguments.count else { throw UsageError(message: "option --\(name) needs a value") }
                values[option] = arguments[index]
                index += 1
            }
        }
        for option in NATSOption.allCases where values[option] == nil {
            if let variable = option.environment, let value = environment(variable), !value.isEmpty {
                values[option] = value
            }
        }
        guard let list = values[.urls] else { return (nil, rest) }
        let urls = NATSConnectOptions.urls(from: list)
        guard !urls.isEmpty else { throw UsageError(message: "--nats needs at least one URL, e.g. nats://host:4222") }
        var options = NATSConnectOptions(urls: urls, name: "booksctl")
        options.credentialsFile = values[.credentials]
        options.user = values[.user]
        options.password = values[.password]
        options.token = values[.token]
        var target = NATSTarget(options: options)
        if let prefix = values[.prefix] { target.prefix = prefix }
        return (target, rest)
    }
}
