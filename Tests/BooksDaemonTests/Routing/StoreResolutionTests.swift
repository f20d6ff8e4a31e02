import BooksProtocol
import Testing

@testable import BooksDaemon

/// Which store a request is about, by version and by the stores there are.
@Suite struct StoreResolutionTests {
    private func resolve(_ request: Request, version: Int, _ names: [String]) -> Result<String, ProtocolError> {
        StoreResolution.store(of: request, version: version, names: names)
    }

    @Test func aNamedStoreMustExist() {
        let named = Request(id: "1", op: .list, store: "fiction")
        #expect(resolve(named, version: 2, ["default", "fiction"]) == .success("fiction"))
        guard case .failure(let error) = resolve(named, version: 2, ["a", "b"]) else {
            Issue.record("expected unknown-store")
            return
        }
        #expect(error.code == .unknownStore && error.stores == ["a", "b"] && error.message.contains("fiction"))
    }

    @Test func withoutANameTheOnlyStoreOrDefaultOrAnError() {
        let plain = Request(id: "1", op: .list)
        #expect(resolve(plain, version: 1, ["only"]) == .success("only"))
        #expect(resolve(plain, version: 2, ["only"]) == .success("only"))
        #expect(resolve(plain, version: 1, ["a", "default"]) == .success("default"), "v1: the store default")
        if case .failure(let error) = resolve(plain, version: 1, ["a", "b"]) {
            #expect(error.code == .unknownStore && error.stores == ["a", "b"])
        } else {
            Issue.record("a v1 client without default must be told")
        }
        if case .failure(let error) = resolve(plain, version: 2, ["a", "default"]) {
            #expect(error.code == .storeRequired && error.stores == ["a", "default"])
        } else {
            Issue.record("v2 with several stores must name one")
        }
        if case .failure(let error) = resolve(plain, version: 2, []) {
            #expect(error.code == .storeRequired && error.message.contains("0 stores"))
        } else {
            Issue.record("no store at all")
        }
    }

    @Test func storeListsAreCheckedSortedAndDeduplicated() throws {
        let names = ["a", "b", "c"]
        let every = try StoreResolution.stores(["*"], names: names).get()
        #expect(every.names == names && every.all)
        let some = try StoreResolution.stores(["c", "a", "c"], names: names).get()
        #expect(some.names == ["a", "c"] && !some.all)
        #expect(throws: ProtocolError.self) { try StoreResolution.stores(["a", "zz"], names: names).get() }
        #expect(throws: ProtocolError.self) { try StoreResolution.stores([], names: names).get() }
        #expect(throws: ProtocolError.self) { try StoreResolution.stores(["*", "a"], names: names).get() }
    }
}
