#if canImport(Glibc)
import Glibc
#endif

/// Entry point: everything happens in `Booksctl.run`.
@main
struct BooksctlMain {
    static func main() async {
        Booksctl.installSignalHandlers()
        let code = await Booksctl.run(Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }
}
