// LiveList: a live terminal list of books that redraws whenever the daemon's books change.
//
//     swift run LiveList [--socket PATH] [--author NAME] [--sort name|author] [--limit N] [--frames N]
//
// It follows a `LiveBookList` (the observable model of a query's results): each change of its
// books or of its connection state redraws the screen. Stop it with Ctrl-C, or give `--frames N`
// to exit after N frames showing books (`--frames 1`: print the list once). Only `import BooksClient` is needed.
import BooksClient
import Observation

#if canImport(Glibc)
import Glibc
#endif

let options: LiveListOptions
do {
    options = try LiveListOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    Screen.write("LiveList: \(error)\n\(LiveListOptions.usage)\n", to: STDERR_FILENO)
    exit(2)
}

let list = LiveBookList(options.query, socketPath: options.socket)
let screen = Screen(interactive: isatty(STDOUT_FILENO) == 1)
var frames = 0
while true {
    // Draw, and learn which properties the drawing read: a change of any of them wakes the loop.
    let changed = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    withObservationTracking {
        screen.draw(list.books, total: list.books.count, state: list.connection, loaded: list.isLoaded)
    } onChange: {
        changed.continuation.yield()
    }
    if list.isLoaded { frames += 1 }
    if let limit = options.frames, frames >= limit { break }
    if case .failed = list.connection { exit(1) }
    for await _ in changed.stream { break }
}
list.stop()
