import Testing

/// git in a repository whose work tree is the watched directory (unlink + create).
@Suite("git") struct GitTests {
    static let edited = Book(id: fixtureID(4), name: "Book 4", author: "Edited By Hand")

    private func withRepo(_ name: String, _ body: (DaemonHarness, Subscriber) throws -> Void) throws {
        try scenario(name) { h, sub in
            try h.tools.must("git init -q . && git add books.txt && git commit -q -m initial")
            try h.tools.must("sed -i 's/|Author 4$/|Edited By Hand/' books.txt")
            sub.expectEvents([.update(Self.edited)], "hand edit before git")
            try body(h, sub)
        }
    }

    @Test("git checkout -- books.txt")
    func checkout() throws {
        try withRepo("git-checkout") { h, sub in
            try h.tools.must("git checkout -- books.txt")
            sub.expectEvents([.update(Books.n(4))])
            #expect(h.fileText == Books.text())
        }
    }

    @Test("git stash")
    func stash() throws {
        try withRepo("git-stash") { h, sub in
            try h.tools.must("git stash -q")
            sub.expectEvents([.update(Books.n(4))], "stash")
            try h.tools.must("git stash pop -q")
            sub.expectEvents([.update(Self.edited)], "stash pop")
        }
    }
}
