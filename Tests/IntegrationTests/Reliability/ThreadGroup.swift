import Foundation

/// Runs closures on threads of their own and waits for all of them (the fault suite's load
/// generators: blocking socket loops that must not occupy the cooperative pool).
struct ThreadGroup {
    private let group = DispatchGroup()

    /// Starts `body` on a new thread.
    func spawn(_ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread { [group] in
            body()
            group.leave()
        }.start()
    }

    /// Waits until every spawned body returned.
    func wait() { group.wait() }
}
