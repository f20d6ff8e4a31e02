import BooksCore
import BooksProtocol
import Testing

@testable import BooksMachines

/// Who each change set is attributed to: a client's actor, NATS, a hand edit's file owner or the
/// editor's evidence; and what several writers committed together have in common.
@Suite struct ReconcilerAttributionTests {
    static let alice = ChangeActor(uid: 1000, user: "alice", pid: 42, program: "booksctl")

    static func delete(_ id: String, actor: ChangeActor?, source: ChangeSource = .client) -> PendingWrite {
        PendingWrite(
            requestID: "w" + id, connection: ReplyTarget(.socket, 1),
            operation: .delete(ids: [id], expectedVersions: nil),
            source: source, actor: actor)
    }

    @Test func clientWritesCarryTheirActorAndHandEditsTheFileOwner() {
        var driver = ReconcilerDriver("1|Dune|Herbert\n2|Emma|Austen\n3|Ulysses|Joyce\n")
        driver.machine.attribution = ReconcilerAttribution { $0 == 0 ? "root" : nil }
        driver.run(.writesReceived([Self.delete("1", actor: Self.alice)]))
        #expect(driver.broadcasts.last?.source == .client)
        #expect(driver.broadcasts.last?.actor == Self.alice)
        driver.edit("2|Emma|Austen\n")
        driver.event()
        #expect(driver.broadcasts.last?.source == .file)
        #expect(driver.broadcasts.last?.actor == ChangeActor(uid: 0, user: "root", editor: "unknown"))
        driver.machine.editorEvidence = EditorEvidence(user: "bob", host: "laptop", pid: 77, editor: "vim")
        driver.edit("2|Emma|Austen\n4|Kim|Kipling\n")
        driver.event()
        #expect(driver.broadcasts.last?.actor == ChangeActor(user: "bob", pid: 77, host: "laptop", editor: "vim"))
        driver.run(.writesReceived([Self.delete("4", actor: .nats, source: .nats)]))
        #expect(driver.broadcasts.last?.source == .nats)
        #expect(driver.broadcasts.last?.actor == .nats)
        #expect(
            driver.machine.context.log.changes(after: 0, currentSeq: 4)?.map(\.actor) == driver.broadcasts.map(\.actor))
    }

    @Test func writersCommittedTogetherKeepWhatTheyHaveInCommon() {
        let bob = ChangeActor(uid: 1000, user: "alice", pid: 43, program: "python3")
        #expect(ChangeActor.common([Self.alice, bob]) == ChangeActor(uid: 1000, user: "alice"))
        #expect(ChangeActor.common([Self.alice, Self.alice]) == Self.alice)
        #expect(ChangeActor.common([]) == nil)
        var driver = ReconcilerDriver("1|Dune|Herbert\n2|Emma|Austen\n")
        driver.run(.writesReceived([Self.delete("1", actor: Self.alice), Self.delete("2", actor: bob)]))
        #expect(driver.broadcasts.count == 1)
        #expect(driver.broadcasts.last?.actor == ChangeActor(uid: 1000, user: "alice"))
        #expect(ChangeActor(uid: 1000, user: "alice", pid: 42, program: "booksctl").summary == "alice booksctl[42]")
        #expect(ChangeActor(user: "bob", pid: 77, host: "laptop", editor: "vim").summary == "bob vim[77]@laptop")
    }

    @Test func aHandEditWithAVimSwapBesideItNamesVimsUserAndPid() {
        var driver = ReconcilerDriver("1|Dune|Herbert\n")
        driver.machine.attribution = ReconcilerAttribution { $0 == 0 ? "root" : nil }
        // vim loaded the version the daemon holds (mtime 1, inode 7): an ordinary save.
        driver.locks = [
            .swap(SwapFileHeader(program: "VIM 9.0", mtimeSeconds: 1, inode: 7, pid: 4242, user: "carol", host: "box"))
        ]
        driver.edit("1|Dune|Frank Herbert\n")
        driver.event()
        #expect(driver.broadcasts.last?.source == .file)
        #expect(driver.broadcasts.last?.actor == ChangeActor(user: "carol", pid: 4242, host: "box", editor: "vim"))
        driver.locks = []
        driver.edit("1|Dune|F. Herbert\n")
        driver.event()
        #expect(driver.broadcasts.last?.actor?.editor == "unknown")
    }
}
