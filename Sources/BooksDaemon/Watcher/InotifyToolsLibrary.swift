import CInotifyTools
import Glibc
import Synchronization

/// Thread-confined handle on the process-wide libinotifytools state.
///
/// libinotifytools keeps all of its state in C statics and is not thread-safe, so exactly one
/// dedicated thread (the ``InotifyFileWatcher`` thread) creates, uses and closes this value.
/// It is deliberately not `Sendable`.
struct InotifyToolsLibrary: ~Copyable {
    /// The inotify descriptor libinotifytools opened (found via `/proc/self/fd`), or -1.
    private(set) var descriptor: Int32 = -1
    private(set) var isOpen = false

    /// `FD_SETSIZE`: libinotifytools `select()`s on its descriptor and aborts at or above this.
    static let selectLimit: Int32 = 1024

    /// A descriptor slot below `FD_SETSIZE`, held open on `/dev/null` by ``reserveSlot()`` and
    /// released just before `inotifytools_initialize()` so that `inotify_init` (lowest free
    /// number) lands at or below it.
    private static let reservedSlot = Mutex<Int32?>(nil)

    /// Opens `/dev/null` to hold a low descriptor number for the next initialisation. Idempotent.
    @discardableResult
    static func reserveSlot() -> Int32? {
        reservedSlot.withLock { slot in
            if let slot { return slot }
            let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            if fd >= selectLimit { _ = Glibc.close(fd); return nil }
            slot = fd
            return fd
        }
    }

    /// Initialises libinotifytools and checks its descriptor is usable with `select()`.
    mutating func open() throws(FileWatcherError) {
        precondition(!isOpen)
        let result: Result<Int32, FileWatcherError> = Self.reservedSlot.withLock { slot in
            let before = Self.inotifyDescriptors()
            if let reserved = slot { _ = Glibc.close(reserved) }
            let ok = inotifytools_initialize()
            let code = inotifytools_error()
            var found: Int32 = -1
            if ok != 0 { found = Self.inotifyDescriptors().subtracting(before).max() ?? -1 }
            if slot != nil {
                // Take the slot back (it is free again unless inotify itself landed on it).
                let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
                slot = (fd >= 0 && fd < Self.selectLimit) ? fd : nil
                if fd >= Self.selectLimit { _ = Glibc.close(fd) }
            }
            guard ok != 0 else { return .failure(.inotifyInitializationFailed(errno: code)) }
            return .success(found)
        }
        switch result {
        case .failure(let error):
            throw error
        case .success(let fd):
            isOpen = true
            descriptor = fd
            if fd >= Self.selectLimit {
                close()
                throw .descriptorAboveSelectLimit(fd: fd)
            }
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // libinotifytools does not set it
        }
    }

    /// Adds a watch on `path` and returns its watch descriptor.
    mutating func addWatch(path: String, mask: UInt32, lookupKey: String) throws(FileWatcherError) -> Int32 {
        precondition(isOpen)
        guard inotifytools_watch_file(path, Int32(bitPattern: mask)) != 0 else {
            throw .watchFailed(directory: path, errno: inotifytools_error())
        }
        let wd = inotifytools_wd_from_filename(lookupKey)
        guard wd >= 0 else { throw .watchFailed(directory: path, errno: EINVAL) }
        return wd
    }

    /// One raw event, copied out of libinotifytools' static buffer.
    struct RawEvent {
        let wd: Int32
        let mask: UInt32
        let name: String
    }

    enum NextResult {
        case event(RawEvent)
        case timedOut
        case failed(errno: Int32)
    }

    /// Waits up to `timeoutSeconds` (≥ 1) for the next event.
    func next(timeoutSeconds: Int) -> NextResult {
        guard let event = inotifytools_next_event(timeoutSeconds) else {
            let code = inotifytools_error()
            return code == 0 || code == EINTR ? .timedOut : .failed(errno: code)
        }
        let name = String(cString: books_inotify_event_name(event))
        return .event(RawEvent(wd: event.pointee.wd, mask: event.pointee.mask, name: name))
    }

    /// Removes every watch and closes the descriptor (`inotifytools_cleanup`). Idempotent.
    mutating func close() {
        guard isOpen else { return }
        // `inotifytools_cleanup` does not reset the static event buffer behind
        // `inotifytools_next_events`: events still buffered there would be returned after the
        // next initialisation and matched against the NEW instance's watch descriptors. Consume
        // them first (timeout 0 = non-blocking select; bounded in case of an event storm).
        var drained = 0
        while drained < 100_000, inotifytools_next_events(0, 1) != nil { drained += 1 }
        inotifytools_cleanup()
        isOpen = false
        descriptor = -1
    }

    deinit {
        if isOpen { inotifytools_cleanup() }
    }

    /// Descriptors of this process that are inotify instances.
    static func inotifyDescriptors() -> Set<Int32> {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var result = Set<Int32>()
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let fd = Int32(name) else { continue }
            let length = readlink("/proc/self/fd/\(name)", &target, target.count)
            guard length > 0 else { continue }
            let link = target[0..<length].map { UInt8(bitPattern: $0) }
            if String(decoding: link, as: UTF8.self) == "anon_inode:inotify" { result.insert(fd) }
        }
        return result
    }
}
