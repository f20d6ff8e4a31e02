import BooksPlatform
import Dispatch
import Glibc
import Synchronization

/// One run of the ``InotifyHub`` thread and the state shared with it.
///
/// Sendable: every stored property is immutable and Sendable (atomics, a mutex, a semaphore,
/// value types); the libinotifytools state itself never leaves the thread.
final class InotifyHubRun: Sendable {
    let stopRequested = Atomic<Bool>(false)
    let wake: WakePipe
    let ready = DispatchSemaphore(value: 0)
    let startupError = Locked<FileWatcherError?>(nil)
    let thread = Locked<DedicatedThread?>(nil)
    let liveness = LoopLiveness()
    /// `pthread_self()` of the hub thread (0 until it runs).
    let threadID = Atomic<UInt>(0)

    init(wake: WakePipe) { self.wake = wake }

    /// Takes the process-wide libinotifytools slot, spawns the thread and waits until the library
    /// is initialised.
    static func launch(hub: InotifyHub) throws(FileWatcherError) -> InotifyHubRun {
        try InotifyHub.processSlot.withLock { (slot: inout String?) throws(FileWatcherError) in
            if let active = slot { throw .anotherInotifyWatcherActive(activePath: active) }
            slot = InotifyHub.slotName
        }
        let release: @Sendable () -> Void = { InotifyHub.processSlot.withLock { $0 = nil } }
        let wake: WakePipe
        do throws(FileWatcherError) { wake = try WakePipe.make() } catch {
            release()
            throw error
        }
        let run = InotifyHubRun(wake: wake)
        let spawned: DedicatedThread
        do throws(DedicatedThreadError) {
            spawned = try DedicatedThread.start(name: "booksd-inotify") { [weak hub] in
                run.threadID.store(UInt(bitPattern: Int(bitPattern: UInt(pthread_self()))), ordering: .releasing)
                if let hub {
                    var loop = InotifyHubLoop(hub: hub, run: run)
                    loop.run()
                } else {
                    _ = run.ready.signal()
                }
                run.liveness.markExited()
                wake.close()
                release()
            }
        } catch {
            wake.close()
            release()
            throw .threadStartFailed(error)
        }
        run.thread.withLock { $0 = spawned }
        run.ready.wait()
        if let error = run.startupError.withLock({ $0 }) {
            spawned.join()
            throw error
        }
        return run
    }

    /// Whether the caller runs on the hub thread.
    var isHubThread: Bool {
        threadID.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
    }

    /// Sets the stop flag, wakes the thread and joins it (detaches when called from it).
    func requestStop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake.wake()
        thread.withLock { $0 }?.join()
    }

    var isStopRequested: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }
}
