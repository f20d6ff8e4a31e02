import BooksDaemon
import Glibc

/// `booksd`: parse the command line and configuration, then run the daemon and exit with the code
/// its run returns (0 after a clean stop, 1 when it cannot start).
@main
struct BooksdMain {
    static func main() {
        // First of all: SIGTERM/SIGINT/SIGHUP must neither kill booksd nor be lost while it starts.
        SignalWaiter.install()
        switch BooksdCommandLine.evaluate(arguments: Array(CommandLine.arguments.dropFirst())) {
        case .exit(let status, let standardOutput, let standardError):
            write(1, standardOutput)
            write(2, standardError)
            exit(status)
        case .run(let configuration):
            let commandLine =
                (try? BooksdCommandLine.parse(Array(CommandLine.arguments.dropFirst()))) ?? BooksdCommandLine()
            if commandLine.user, let paths = UserServicePaths(environment: ProcessEnvironment.current()),
                configuration.filePath == paths.bookFile
            {
                createDirectories(paths.bookDirectory)
            }
            exit(Daemon(configuration: configuration, commandLine: commandLine).run())
        }
    }
}

/// Writes all of `text` to `fd` (no stdio buffering).
func write(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n <= 0 {
            if errno == EINTR { continue }
            return
        }
        offset += n
    }
}

/// Creates `path` and its missing parents, 0700 (the per-user default book directory); existing
/// ones are left as they are.
func createDirectories(_ path: String) {
    var prefix = ""
    for component in path.split(separator: "/") {
        prefix += "/" + component
        mkdir(prefix, 0o700)
    }
}
