/// The one version of BookSync: `booksd --version`, `booksctl --version`, the daemon's `hello`
/// reply, the manual pages and the Debian package (`scripts/package-deb.sh` reads it from
/// `booksctl --version`) all take it from here.
///
/// Bumping a release: change `number` (semantic versioning: MAJOR.MINOR.PATCH), update the `.TH`
/// lines of `docs/man/booksd.8` and `docs/man/booksd.conf.5` (a test fails until they match) and
/// regenerate `docs/man/booksctl.1` (`booksctl __manpage > docs/man/booksctl.1`).
public enum BookSyncVersion {
    /// The release number, e.g. `0.1.0`.
    public static let number = "0.1.0"

    /// `"<program> <number>"`, e.g. `booksd 0.1.0`: what `--version` prints.
    public static func line(program: String) -> String { "\(program) \(number)" }
}
