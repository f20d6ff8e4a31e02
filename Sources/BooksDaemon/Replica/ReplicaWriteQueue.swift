/// Ids of books waiting for a local write (or a send), in the order they came, each once.
///
/// Taken from the front, so a write or send costs the books it takes: no pass over (or sort of)
/// the books still waiting. Appending an id already waiting keeps its place.
struct ReplicaWriteQueue: Sendable {
    private var ids: [String] = []
    private var head = 0
    private var members = Set<String>()

    /// How many ids wait.
    var count: Int { members.count }

    /// Whether `id` waits.
    func contains(_ id: String) -> Bool { members.contains(id) }

    /// Puts `id` at the end, unless it already waits.
    mutating func append(_ id: String) {
        if members.insert(id).inserted { ids.append(id) }
    }

    /// Takes the id at the front (nil when none waits).
    mutating func popFirst() -> String? {
        guard head < ids.count else { return nil }
        let id = ids[head]
        head += 1
        members.remove(id)
        if head == ids.count {
            ids.removeAll(keepingCapacity: false)
            head = 0
        } else if head >= 4_096, head * 2 >= ids.count {
            ids.removeFirst(head)  // amortised: the taken half goes at once
            head = 0
        }
        return id
    }
}
