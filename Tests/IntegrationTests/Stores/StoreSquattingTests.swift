import BooksTestSupport
import Glibc
import Testing

extension StoresTests {
    @Test("a second file of a served store name (orders.json beside orders.txt) is shadowed, across a restart too")
    func squattingFileIsShadowedAcrossARestart() async throws {
        let h = try await DaemonHarness("stores-squat", confirmationMs: 300, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        try TestFiles.write("1|Order One|Owner\n", to: lists + "/orders.txt")
        h.extraDaemonArguments = ["--dir", lists]
        try await h.startDaemon()
        let ctl = shellQuote(BuildProducts.booksctl) + " --store orders list"
        #expect(await waitForLog(h, "books_store=orders"))
        // Someone drops orders.json: it is not served, and says so once.
        try TestFiles.write(#"[{"id":"2","name":"Squatter","author":"Other"}]"# + "\n", to: lists + "/orders.json")
        let shadowed = "'orders.json' in the watched folder \(lists) is not served"
        #expect(await waitForLog(h, shadowed))
        #expect(try await h.tools.must(ctl).output.contains("Order One"))
        // The saved history of orders.txt exists once booksd is ready; a restart keeps its file.
        #expect(await eventually(timeout: 10) { TestFiles.names(in: lists).contains(".orders.txt.history") })
        #expect(h.daemon?.stop() == 0)
        try await h.startDaemon()
        #expect(await waitForLog(h, "saved history restored from \(lists)/.orders.txt.history"))
        let served = try await h.tools.must(ctl).output
        #expect(served.contains("Order One") && !served.contains("Squatter"), "\(served)")
        #expect(await waitForLog(h, shadowed))
        // orders.txt leaves: the store is removed, then served from orders.json.
        try await h.tools.must("rm ../lists/orders.txt")
        #expect(await waitForLog(h, "store 'orders' removed"))
        #expect(await eventually(timeout: 10) { (try? await h.tools.must(ctl).output.contains("Squatter")) == true })
    }

    @Test("with a state directory, the file whose snapshot names it keeps the store at a restart (orders.json first)")
    func savedHistoryInTheStateDirectoryChoosesTheFile() async throws {
        let h = try await DaemonHarness("stores-squat-state", confirmationMs: 300, start: false)
        defer { h.shutdown() }
        let lists = h.directory.makeDirectory("lists")
        let state = h.directory.makeDirectory("state", mode: 0o700)
        try TestFiles.write(#"[{"id":"2","name":"First JSON","author":"Owner"}]"# + "\n", to: lists + "/orders.json")
        h.extraDaemonArguments = ["--dir", lists, "--state-directory", state]
        try await h.startDaemon()
        #expect(await waitForLog(h, "books_store=orders"))
        try TestFiles.write("1|Later Text|Other\n", to: lists + "/orders.txt")
        #expect(await waitForLog(h, "'orders.txt' in the watched folder \(lists) is not served"))
        #expect(await eventually(timeout: 10) { TestFiles.names(in: state + "/orders").contains("snapshot") })
        #expect(h.daemon?.stop() == 0)
        // Without the history, NAME.txt would win; the snapshot names orders.json, so it stays.
        try await h.startDaemon()
        #expect(await waitForLog(h, "saved history restored from \(state)/orders"))
        let served = try await h.tools.must(shellQuote(BuildProducts.booksctl) + " --store orders list").output
        #expect(served.contains("First JSON") && !served.contains("Later Text"), "\(served)")
    }
}
