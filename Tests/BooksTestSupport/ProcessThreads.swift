/// The threads of this test process, by name (`/proc/self/task/*/comm`): for checking that a
/// component started its named thread, or that a joined thread is really gone.
public enum ProcessThreads {
    /// The names of this process's threads (unsorted; one entry per thread).
    public static func names() -> [String] {
        TestFiles.names(in: "/proc/self/task").compactMap { task in
            TestFiles.readText("/proc/self/task/\(task)/comm")?.split(separator: "\n").first.map(String.init)
        }
    }

    /// How many threads of this process are named `name`.
    public static func count(named name: String) -> Int { names().filter { $0 == name }.count }

    /// Whether no thread named `name` is left within `timeout` seconds. A joined thread can stay
    /// listed in `/proc` for a moment: the kernel wakes `pthread_join` before it finishes reaping.
    public static func noneLeft(named name: String, timeout: Double = 1) -> Bool {
        eventuallyBlocking(timeout: timeout, interval: 0.001) { count(named: name) == 0 }
    }
}
