import Testing

@testable import BooksDaemon

@Suite struct ReplicaWriteQueueTests {
    @Test func idsComeOutInTheOrderTheyWentInEachOnce() {
        var queue = ReplicaWriteQueue()
        for id in ["b", "a", "b", "c"] { queue.append(id) }
        #expect(queue.count == 3)
        #expect(queue.popFirst() == "b")
        queue.append("b")  // taken, so it waits again, at the end
        #expect([queue.popFirst(), queue.popFirst(), queue.popFirst(), queue.popFirst()] == ["a", "c", "b", nil])
        #expect(queue.count == 0)
    }

    @Test func aLongQueueKeepsItsOrderAcrossCompaction() {
        var queue = ReplicaWriteQueue()
        for index in 0..<10_000 { queue.append("\(index)") }
        var taken: [String] = []
        for _ in 0..<6_000 { taken.append(queue.popFirst()!) }
        for index in 10_000..<10_010 { queue.append("\(index)") }
        while let id = queue.popFirst() { taken.append(id) }
        #expect(taken == (0..<10_010).map { "\($0)" })
    }
}
