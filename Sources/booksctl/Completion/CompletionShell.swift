/// A shell `booksctl completion` writes a script for.
enum CompletionShell: String, CaseIterable, Equatable, Sendable {
    case bash, zsh, fish
}
