import BooksPlatform
import Glibc
import Testing

@Suite struct DedicatedThreadTests {
    @Test func theBodyRunsOnceOnANamedThreadAndJoinWaitsForIt() throws {
        let seen = Locked<[String]>([])
        let thread = try DedicatedThread.start(name: "books-test-1") {
            let text = Self.currentThreadName()
            usleep(20_000)  // join must wait for this
            seen.withLock { $0.append(text) }
        }
        thread.join()
        #expect(seen.withLock { $0 } == ["books-test-1"])
        thread.join()  // a second join is harmless
        #expect(thread.name == "books-test-1")
    }

    /// The calling thread's name as the kernel reports it.
    static func currentThreadName() -> String {
        guard let file = fopen("/proc/thread-self/comm", "r") else { return "?" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "?" }
        let bytes = buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func joiningFromTheThreadItselfDoesNotDeadlock() throws {
        let done = Locked(false)
        let holder = Locked<DedicatedThread?>(nil)
        let gate = Locked(false)
        let thread = try DedicatedThread.start(name: "books-self") {
            while !gate.withLock({ $0 }) { usleep(1_000) }
            let me = holder.withLock { $0 }
            #expect(me?.isCurrent == true)
            me?.join()
            done.withLock { $0 = true }
        }
        #expect(!thread.isCurrent)
        holder.withLock { $0 = thread }
        gate.withLock { $0 = true }
        for _ in 0..<2_000 where !done.withLock({ $0 }) { usleep(1_000) }
        #expect(done.withLock { $0 })
    }

    @Test func theErrorNamesTheThreadAndTheReason() {
        let error = DedicatedThreadError(name: "booksd-server", code: EAGAIN)
        #expect(error.description.hasPrefix("cannot start thread booksd-server: "))
        #expect(error.description.count > "cannot start thread booksd-server: ".count)
    }
}
