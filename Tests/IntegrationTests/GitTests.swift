import Testing

/// git in a repository whose work tree is the watched directory (unlink + create).
@Suite("git", .timeLimit(.minutes(3))) struct GitTests {
    static let edited = TestBook(id: fixtureID(4), name: "Book 4", author: "Edited By Hand")

    private func withRepo(_ name: String, _ body: (DaemonHarness, Subscriber) async throws -> Void) async throws {
        try await scenario(name) { h, sub in
            try await h.tools.must("git init -q . && git add books.txt && git commit -q -m initial")
            try await h.tools.must("sed -i 's/|Author 4$/|Edited By Hand/' books.txt")
            await sub.expectEvents([.update(Self.edited)], "hand edit before git")
            try await body(h, sub)
        }
    }

    @Test("git checkout -- books.txt")
    func checkout() async throws {
        try await withRepo("git-checkout") { h, sub in
            try await h.tools.must("git checkout -- books.txt")
            await sub.expectEvents([.update(Books.n(4))])
            #expect(h.fileText == Books.text())
        }
    }

    @Test("git stash")
    func stash() async throws {
        try await withRepo("git-stash") { h, sub in
            try await h.tools.must("git stash -q")
            await sub.expectEvents([.update(Books.n(4))], "stash")
            try await h.tools.must("git stash pop -q")
            await sub.expectEvents([.update(Self.edited)], "stash pop")
        }
    }
}
