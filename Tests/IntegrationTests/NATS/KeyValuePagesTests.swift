import BooksClient
import BooksNATS
import BooksTestSupport
import Testing

/// A key-value bucket read in pages (`KeyValueStore.forEachValue`), with a real nats-server:
/// how an owner reconciles its bucket and a replica reads it for its first copy, at any size.
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct KeyValuePagesTests {
    /// What one read saw.
    struct Read: Sendable {
        var pages = 0
        var perPage: [Int] = [0]
        var values: [String: [UInt8]] = [:]
        var gathered: [String: [UInt8]] = [:]
        var renewed: [UInt8]?
        var elapsed = Duration.zero
    }

    /// Fills a fresh bucket on a scratch server with `fill`, then reads it in pages of
    /// `pageSize`, writing to another bucket between pages (as the owner renews its lease).
    static func read(
        pageSize: Int, fill: @escaping @Sendable (KeyValueStore) throws(NATSError) -> Void
    ) async throws
        -> Read
    {
        let server = try NATSServerProcess()
        let result: Result<Read, NATSError> = await NATSBooksClient.onThread {
            Result { () throws(NATSError) in
                let jetStream = try NATSStreamView.connect(server.url).jetStream()
                let bucket = try jetStream.keyValue("pages_test")
                try fill(bucket)
                let other = try jetStream.keyValue("pages_test_other")
                var read = Read()
                let start = ContinuousClock.now
                read.pages = try bucket.forEachValue(
                    pageSize: pageSize,
                    betweenPages: { () throws(NATSError) in
                        try other.put("renewed", Array("\(read.perPage.count)".utf8))
                        read.perPage.append(0)
                    }
                ) { key, value in
                    read.perPage[read.perPage.count - 1] += 1
                    if let value { read.values[key] = value } else { read.values.removeValue(forKey: key) }
                }
                read.elapsed = ContinuousClock.now - start
                read.renewed = try other.get("renewed")
                read.gathered = try bucket.values()
                return read
            }
        }
        return try result.get()
    }

    @Test func aBucketLargerThanOnePageIsReadWholeOnePageAtATime() async throws {
        let read = try await Self.read(pageSize: 1000) { bucket throws(NATSError) in
            for index in 0..<2500 { try bucket.put("k\(index)", Array("v\(index)".utf8)) }
            for index in 0..<10 { try bucket.delete("k\(index)") }
            for index in 10..<15 { try bucket.put("k\(index)", Array("new\(index)".utf8)) }
        }
        #expect(read.pages == 3, "2500 keys (10 of them deleted) in pages of 1000")
        #expect(read.perPage == [1000, 1000, 500], "never more than one page at a time: \(read.perPage)")
        #expect(read.values.count == 2490)
        #expect(read.values["k5"] == nil, "a deleted key is not read")
        #expect(read.values["k12"] == Array("new12".utf8) && read.values["k2499"] == Array("v2499".utf8))
        #expect(read.renewed == Array("2".utf8), "the connection answered after each page but the last")
        #expect(read.gathered == read.values, "values() is the same read, gathered")
    }

    @Test func anEmptyBucketIsReadWithoutWaiting() async throws {
        let read = try await Self.read(pageSize: 1000) { _ throws(NATSError) in }
        #expect(read.pages == 0 && read.values.isEmpty && read.perPage == [0])
        #expect(read.elapsed < .seconds(4), "no wait for a page of a bucket with nothing in it: \(read.elapsed)")
    }
}
