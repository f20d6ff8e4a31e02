/// What `booksd` should do after looking at its arguments and configuration.
public enum BooksdLaunch: Sendable, Equatable {
    /// Start the daemon with this merged, validated configuration.
    case run(DaemonConfiguration)
    /// Print `standardOutput` to stdout and `standardError` to stderr, then exit with `status`
    /// (0 for `--help`, `--version`, a valid `--check-config`; 2 for usage and configuration errors).
    case exit(status: Int32, standardOutput: String, standardError: String)
}
