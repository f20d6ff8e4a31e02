import BooksPlatform
import CInotifyTools
import CLinux
import Glibc

/// Thread-confined handle on the process-wide libinotifytools state.
///
/// libinotifytools keeps all of its state in C statics and is not thread-safe, so exactly one
/// dedicated thread (the ``InotifyHub`` thread) creates, uses and closes this value.
/// It is deliberately not `Sendable`.
struct InotifyToolsLibrary: ~Copyable {
    /// The inotify descriptor libinotifytools opened (found via `/proc/self/fd`), or -1.
    private(set) var descriptor: Int32 = -1
    private(set) var isOpen = false

    /// `FD_SETSIZE`: libinotifytools `select()`s on its descriptor and aborts at or above this.
    static let selectLimit: Int32 = 1024

    /// The descriptor reservation made by ``reserveSlot()``.
    enum Reservation: Sendable, Equatable {
        /// No reservation (``InotifyHub/prepare()`` was not called, or no low slot was free).
        case none
        /// `/dev/null` is held open on this descriptor number (below `FD_SETSIZE`).
        case held(Int32)
        /// The slot was released to `inotifytools_initialize()`. `spare` is a second low number
        /// taken as soon as the library had its descriptor: it becomes the reservation after
        /// cleanup, so the slot is never "given back" through a window in which another thread's
        /// `open`/`accept` could take the freed number (nil: none was free then).
        case inUse(spare: Int32?)
    }

    /// Keeps a descriptor number below `FD_SETSIZE` free for libinotifytools: held open on
    /// `/dev/null`, closed just before `inotifytools_initialize()` so that `inotify_init` (which
    /// takes the lowest free number) lands at or below it; a spare is held while the library runs.
    static let reservation = Locked<Reservation>(.none)

    /// How often ``open()`` tries again when another thread took the freed slot between its
    /// `close` and the library's `inotify_init` (a window of microseconds).
    static let openAttempts = 8

    /// Opens `/dev/null` to hold a low descriptor number for the library. Idempotent; returns
    /// whether a reservation exists (or the library currently uses the reserved slot).
    @discardableResult
    static func reserveSlot() -> Bool {
        reservation.withLock { state in
            switch state {
            case .none: state = holdLowDescriptor()
            case .inUse(spare: nil): state = .inUse(spare: lowDescriptor())
            case .held, .inUse: break
            }
            return state != .none
        }
    }

    /// Drops the reservation (tests use it to start from a clean state).
    static func releaseReservation() {
        reservation.withLock { state in
            switch state {
            case .held(let fd), .inUse(spare: .some(let fd)): _ = Glibc.close(fd)
            case .none, .inUse(spare: nil): break
            }
            state = .none
        }
    }

    private static func holdLowDescriptor() -> Reservation {
        lowDescriptor().map(Reservation.held) ?? .none
    }

    /// `/dev/null` opened on the lowest free number, if that is below `FD_SETSIZE`.
    private static func lowDescriptor() -> Int32? {
        let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard fd < selectLimit else {
            _ = Glibc.close(fd)
            return nil
        }
        return fd
    }

    /// Initialises libinotifytools and checks its descriptor is usable with `select()`.
    mutating func open() throws(FileWatcherError) {
        precondition(!isOpen)
        let result: Result<Int32, FileWatcherError> = Self.reservation.withLock { state in
            var attempt = 1
            while true {
                let outcome = Self.initialize(&state)
                // Another thread took the freed slot before `inotify_init` ran: give the high
                // descriptor back, hold the lowest free number again and retry.
                guard case .success(let fd) = outcome, fd >= Self.selectLimit, attempt < Self.openAttempts
                else { return outcome }
                inotifytools_cleanup()
                if case .inUse(let spare) = state { state = spare.map(Reservation.held) ?? .none }
                if state == .none { state = Self.holdLowDescriptor() }
                guard state != .none else { return outcome }  // no low number is free at all
                attempt += 1
            }
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

    /// One `inotifytools_initialize()` on the reserved slot; returns the library's descriptor.
    /// Runs under the reservation's lock.
    private static func initialize(_ state: inout Reservation) -> Result<Int32, FileWatcherError> {
        let before = inotifyDescriptors()
        if case .held(let fd) = state {
            _ = Glibc.close(fd)
            state = .inUse(spare: nil)
        }
        guard inotifytools_initialize() != 0 else {
            let code = inotifytools_error()
            if case .inUse(let spare) = state { state = spare.map(Reservation.held) ?? holdLowDescriptor() }
            return .failure(.inotifyInitializationFailed(errno: code))
        }
        let fd = inotifyDescriptors().subtracting(before).max() ?? -1
        if case .inUse(spare: nil) = state { state = .inUse(spare: lowDescriptor()) }
        return .success(fd)
    }

    /// Adds a watch on `path` and returns its watch descriptor.
    ///
    /// Calls `inotify_add_watch` on the library's descriptor directly: libinotifytools' own
    /// path→watch tables are never filled, so nothing it keeps can go stale. (It keeps the path of
    /// a watch whose directory was renamed away or deleted, and adding a watch for that path again
    /// corrupted its tree: a crash in `create_watch` → `rbsearch` → `strcmp`.) The caller keeps
    /// the path→watch map (``InotifyHubRoutes``); events are still read through the library,
    /// which does not consult its tables for that.
    mutating func addWatch(path: String, mask: UInt32) throws(FileWatcherError) -> Int32 {
        precondition(isOpen)
        guard descriptor >= 0 else { throw .watchFailed(directory: path, errno: EBADF) }
        let wd = inotify_add_watch(descriptor, path, mask)
        guard wd >= 0 else { throw .watchFailed(directory: path, errno: errno) }
        return wd
    }

    /// Removes the watch `wd` (added by ``addWatch(path:mask:)``); harmless when the kernel
    /// already dropped it (its directory was deleted or unmounted).
    func removeWatch(_ wd: Int32) {
        guard isOpen, descriptor >= 0, wd >= 0 else { return }
        _ = inotify_rm_watch(descriptor, wd)
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
        Self.shutdown(descriptor: descriptor)
        isOpen = false
        descriptor = -1
    }

    deinit {
        if isOpen { Self.shutdown(descriptor: descriptor) }
    }

    private static func shutdown(descriptor: Int32) {
        // `inotifytools_cleanup` does not reset the static event buffer behind
        // `inotifytools_next_events`: events still buffered there would be returned after the
        // next initialisation and matched against the NEW instance's watch descriptors. Consume
        // them first (timeout 0 = non-blocking select; bounded in case of an event storm).
        // Never select() on a descriptor at or above FD_SETSIZE (glibc aborts), nor on an unknown one.
        if descriptor >= 0, descriptor < selectLimit {
            var drained = 0
            while drained < 100_000, inotifytools_next_events(0, 1) != nil { drained += 1 }
        }
        inotifytools_cleanup()
        reservation.withLock { state in
            if case .inUse(let spare) = state { state = spare.map(Reservation.held) ?? holdLowDescriptor() }
        }
    }

    /// Descriptors of this process that are inotify instances.
    static func inotifyDescriptors() -> Set<Int32> {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        var result = Set<Int32>()
        var target = [CChar](repeating: 0, count: 64)
        while let entry = readdir(dir) {
            let name = String(cString: books_dirent_name(entry))
            guard let fd = Int32(name) else { continue }
            let length = readlink("/proc/self/fd/\(name)", &target, target.count)
            guard length > 0 else { continue }
            let link = target[0..<length].map { UInt8(bitPattern: $0) }
            if String(decoding: link, as: UTF8.self) == "anon_inode:inotify" { result.insert(fd) }
        }
        return result
    }
}
