import Testing

@testable import BooksProtocol

/// The NATS names are spelled once (`NATSNaming`): the checked names of the daemon and the
/// unchecked ones a client builds from what its user typed are the same strings.
@Suite struct NATSNamingTests {
    @Test func uncheckedNamesAreTheCheckedOnes() {
        let naming = NATSNaming(prefix: "books", store: "orders")
        #expect(naming.changesSubject == "books.orders.changes")
        #expect(naming.apiSubject == "books.orders.api")
        #expect(naming.streamName == "books_orders_changes")
        #expect(naming.bucketName == "books_orders")
        #expect(naming.ownerBucketName == "books_orders_owner")
        #expect(NATSNaming.changesSubject(prefix: "books", store: "orders") == naming.changesSubject)
        #expect(NATSNaming.apiSubject(prefix: "books", store: "orders") == naming.apiSubject)
        #expect(NATSNaming.streamName(prefix: "books", store: "orders") == naming.streamName)
        #expect(NATSNaming.bucketName(prefix: "books", store: "orders") == naming.bucketName)
    }

    @Test func aStreamNameGivesItsStoreBack() {
        #expect(NATSNaming.store(ofStreamName: "books_orders_changes", prefix: "books") == "orders")
        #expect(NATSNaming.store(ofStreamName: "books_a_b_changes", prefix: "books") == "a_b")
        #expect(NATSNaming.store(ofStreamName: "other_orders_changes", prefix: "books") == nil)
        #expect(NATSNaming.store(ofStreamName: "books_orders", prefix: "books") == nil)
        #expect(NATSNaming.store(ofStreamName: "books__changes", prefix: "books") == nil)
    }
}
