import BooksStore
import Glibc

/// Why booksd refuses to start before it binds its socket or opens a book file.
struct DaemonStartError: Error, CustomStringConvertible {
    let description: String
}

extension Daemon {
    /// Refuses to start when another process (another booksd) holds the state directory of one of
    /// the configured stores: both would serve and write the same book file.
    func refuseIfAnotherDaemonServes() throws(DaemonStartError) {
        for spec in configuration.effectiveStores {
            guard let directory = configuration.stateDirectory(for: spec),
                let pid = StateDirectory.lockHolder(of: directory)
            else { continue }
            let who = pid > 0 ? "another booksd (pid \(pid))" : "another booksd"
            throw DaemonStartError(
                description: """
                    \(who) already serves \(spec.path) (store '\(spec.name)'): its state directory \(directory) \
                    is locked; stop that daemon first, or give this one another book file
                    """)
        }
    }
}
