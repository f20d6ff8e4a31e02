/// booksctl's NATS options, declared once: `NATSTarget` reads them (and their environment
/// variables), the catalog's global options list them for help, completion and the manual page.
enum NATSOption: String, CaseIterable, Sendable {
    case urls = "nats"
    case credentials = "nats-creds"
    case user = "nats-user"
    case password = "nats-password"
    case token = "nats-token"
    case prefix = "nats-prefix"

    /// The environment variable read when the option is not given (none for the prefix).
    var environment: String? {
        switch self {
        case .urls: "BOOKS_NATS"
        case .credentials: "BOOKS_NATS_CREDS"
        case .user: "BOOKS_NATS_USER"
        case .password: "BOOKS_NATS_PASSWORD"
        case .token: "BOOKS_NATS_TOKEN"
        case .prefix: nil
        }
    }

    /// The option as help, completion and the manual page show it.
    var spec: OptionSpec {
        switch self {
        case .urls: .value(rawValue, "URL", "talk to booksd through NATS instead (comma-separated URLs; or BOOKS_NATS)")
        case .credentials: .value(rawValue, "FILE", "NATS credentials file (or BOOKS_NATS_CREDS)")
        case .user: .value(rawValue, "USER", "NATS user (or BOOKS_NATS_USER)")
        case .password: .value(rawValue, "PASSWORD", "NATS password (or BOOKS_NATS_PASSWORD)")
        case .token: .value(rawValue, "TOKEN", "NATS token (or BOOKS_NATS_TOKEN)")
        case .prefix: .value(rawValue, "PREFIX", "prefix of NATS subjects, streams and buckets (default books)")
        }
    }
}
