import Testing

@testable import BooksDaemon

/// Which stores NATS can carry: pure, no NATS needed.
@Suite struct NATSStoreLinksTests {
    @Test(arguments: ["default", "fiction", "a-b_c", "owner", "x_owners", "owner_x", "A9"])
    func aStoreNATSCanNameIsPublished(_ name: String) throws {
        #expect(NATSStoreLinks.problem(with: try StoreName(name)) == nil)
    }

    @Test func aNameWithADotCannotBeASubjectToken() throws {
        let problem = NATSStoreLinks.problem(with: try StoreName("my.list"))
        #expect(problem?.contains("'.'") == true, "\(problem ?? "nil")")
    }

    /// `x_owner`'s bucket `books_x_owner` would be the lease bucket of the store `x`.
    @Test func aNameEndingInOwnerWouldShareTheLeaseBucketOfAnotherStore() throws {
        let problem = NATSStoreLinks.problem(with: try StoreName("x_owner"))
        #expect(problem?.contains("_owner") == true, "\(problem ?? "nil")")
    }
}
