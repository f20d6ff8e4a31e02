/// What a ``FileWatcher`` observed about the watched file.
///
/// Events are hints, never content: the consumer must re-read (and diff) the file. Counts are
/// meaningless (the kernel merges identical consecutive events) and a completion event can arrive
/// without any content change (`touch`, emacs's second close). `MODIFY` is never reported: it marks
/// partial content.
public enum FileWatchEvent: Sendable, Hashable, CustomStringConvertible {
    /// A write to the exact file name completed: `CLOSE_WRITE` (in-place writers) or `MOVED_TO`
    /// (rename-over writers: sed -i, vim bkc=no, rsync, `os.replace`, git). Re-read now.
    case contentMayHaveChanged
    /// The exact file name no longer refers to the file: `DELETE` or `MOVED_FROM`. The path may be
    /// absent or about to be replaced (rm + recreate, editors' rename dances); treat a removal as
    /// final only after a quiet period.
    case removed
    /// A file with the exact name appeared (`CREATE`). Its content is not complete yet: wait for
    /// ``contentMayHaveChanged``.
    case created
    /// Metadata of the file changed (`ATTRIB`: chmod, chown, touch). Informative only.
    case attributesChanged
    /// The kernel queue overflowed (`IN_Q_OVERFLOW`): events were lost; a full re-read is needed.
    case overflow
    /// The watch on the containing directory was lost (directory deleted, moved, or unmounted) or
    /// has just been re-established after such a loss. Emitted once when lost and once more when
    /// the watcher has re-added the watch. Either way the consumer must fully re-read.
    case watchLost

    /// A short lowercase name for logs.
    public var description: String {
        switch self {
        case .contentMayHaveChanged: "contentMayHaveChanged"
        case .removed: "removed"
        case .created: "created"
        case .attributesChanged: "attributesChanged"
        case .overflow: "overflow"
        case .watchLost: "watchLost"
        }
    }
}
