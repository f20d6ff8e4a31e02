import CInotifyTools

/// Maps one raw inotify event on the watched directory to what the watcher reports.
///
/// Pure (no I/O), so the mapping is unit-tested without the kernel.
enum InotifyEventClassifier {
    /// What the watcher does with one event.
    enum Outcome: Sendable, Hashable {
        /// Deliver this event to the handler.
        case deliver(FileWatchEvent)
        /// The directory watch is gone (deleted, moved, unmounted, or removed by the kernel).
        case directoryLost
        /// Not about the watched file (other names, MODIFY, OPEN, unknown watch descriptors).
        case ignore
    }

    // IN_* import as Int32 while masks are UInt32; keep each constant a separate, typed value.
    static let closeWrite = UInt32(IN_CLOSE_WRITE)
    static let movedTo = UInt32(IN_MOVED_TO)
    static let movedFrom = UInt32(IN_MOVED_FROM)
    static let create = UInt32(IN_CREATE)
    static let delete = UInt32(IN_DELETE)
    static let attrib = UInt32(IN_ATTRIB)
    static let deleteSelf = UInt32(IN_DELETE_SELF)
    static let moveSelf = UInt32(IN_MOVE_SELF)
    static let ignored = UInt32(IN_IGNORED)
    static let unmount = UInt32(IN_UNMOUNT)
    static let queueOverflow = UInt32(IN_Q_OVERFLOW)
    static let onlyDirectory = UInt32(IN_ONLYDIR)

    /// The mask for the directory watch. Overflow, ignored and unmount are always delivered.
    static let directoryMask: UInt32 = {
        var mask = closeWrite
        mask |= movedTo
        mask |= movedFrom
        mask |= create
        mask |= delete
        mask |= attrib
        mask |= deleteSelf
        mask |= moveSelf
        mask |= onlyDirectory
        return mask
    }()

    static let completedWrite: UInt32 = closeWrite | movedTo
    static let goneFromName: UInt32 = delete | movedFrom
    static let directoryGone: UInt32 = {
        var mask = ignored
        mask |= deleteSelf
        mask |= moveSelf
        mask |= unmount
        return mask
    }()

    /// Classifies an event with watch descriptor `wd`, `mask` and entry `name` (empty for events
    /// on the directory itself), given the directory's watch descriptor and the watched file name.
    static func classify(
        wd: Int32, mask: UInt32, name: String,
        directoryWatch: Int32, fileName: String
    ) -> Outcome {
        if mask & queueOverflow != 0 { return .deliver(.overflow) }
        guard wd == directoryWatch else { return .ignore }
        if mask & directoryGone != 0 { return .directoryLost }
        guard name == fileName else { return .ignore }
        if mask & completedWrite != 0 { return .deliver(.contentMayHaveChanged) }
        if mask & goneFromName != 0 { return .deliver(.removed) }
        if mask & create != 0 { return .deliver(.created) }
        if mask & attrib != 0 { return .deliver(.attributesChanged) }
        return .ignore
    }
}
