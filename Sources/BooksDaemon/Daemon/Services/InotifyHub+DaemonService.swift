/// The shared inotify hub is a service as it is: `start()` runs its thread, `stop()` ends it
/// (after the stores stopped watching).
extension InotifyHub: DaemonService {
    /// "inotify hub".
    public var name: String { "inotify hub" }
}
