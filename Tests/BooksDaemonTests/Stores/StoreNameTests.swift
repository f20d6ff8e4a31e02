import BooksCore
import Testing

@testable import BooksDaemon

@Suite struct StoreNameTests {
    @Test(arguments: ["default", "a", "Fiction-2024", "to_read", "x.y", "9lives", String(repeating: "z", count: 64)])
    func validNamesAreKept(_ text: String) throws {
        #expect(try StoreName(text).rawValue == text)
    }

    @Test(arguments: [
        ("", "empty"), (".hidden", "start with"), ("-x", "start with"), ("a b", "' '"), ("a/b", "'/'"),
        ("é", "start with"), ("aé", "non-ASCII"), (String(repeating: "z", count: 65), "at most 64"),
    ])
    func invalidNamesSayWhy(_ text: String, _ fragment: String) {
        #expect(throws: StoreConfigurationError.self) { try StoreName(text) }
        let problem = StoreName.problem(with: text) ?? ""
        #expect(problem.contains(fragment), "\(problem)")
    }

    @Test func specParsesNamePathAndFormat() throws {
        #expect(try StoreSpec.parse("a=books.txt") == StoreSpec(name: StoreName("a"), path: "books.txt", format: .text))
        #expect(try StoreSpec.parse("b=/x/lib.json").format == .json)
        #expect(try StoreSpec.parse("c=/x/lib.txt:json").format == .json)
        #expect(try StoreSpec.parse("d=/x:y/lib").path == "/x:y/lib")
        #expect(throws: StoreConfigurationError.self) { try StoreSpec.parse("noequals") }
        #expect(throws: StoreConfigurationError.self) { try StoreSpec.parse("a=") }
        #expect(throws: StoreConfigurationError.self) { try StoreSpec.parse("bad name=x.txt") }
    }

    @Test func configurationFileStoreLines() throws {
        let text = """
            store fiction = /srv/fiction.txt
            store library = "/srv/my library.json"
            store todo = /srv/todo.list json
            store_folder = /srv/lists
            """
        let config = try ConfigurationFile.parse(text).apply(
            resolver: AccountResolver(userID: { _ in nil }, groupID: { _ in nil }))
        #expect(config.stores.map(\.name.rawValue) == ["fiction", "library", "todo"])
        #expect(config.stores.map(\.format) == [.text, .json, .json])
        #expect(config.stores[1].path == "/srv/my library.json")
        #expect(config.storeFolder == "/srv/lists")
        // Without file, the default store is not added when stores are configured.
        #expect(!config.effectiveStores.contains { $0.name == .default })
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse("store a = x\nstore a = y").apply() }
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse("store a/b = x") }
    }

    @Test func commandLineStoresAndDefault() throws {
        let line = try BooksdCommandLine.parse(["--store", "a=a.txt", "--store=b=b.json:json", "--file", "c.txt"])
        let config = try line.configuration(readFile: { _ in "" })
        #expect(config.effectiveStores.map(\.name.rawValue) == ["default", "a", "b"])
        #expect(config.effectiveStores[0].path == "c.txt")
        #expect(throws: CommandLineError.self) { try BooksdCommandLine.parse(["--store", "a=x", "--store", "a=y"]) }
        #expect(throws: CommandLineError.self) { try BooksdCommandLine.parse(["--store", "-x=y"]) }
        // A single --file (or nothing) is the store `default`, as before.
        #expect(DaemonConfiguration().effectiveStores.map(\.name) == [.default])
    }

    @Test func stateDirectoryIsPerStore() throws {
        var config = DaemonConfiguration()
        let spec = StoreSpec(name: try StoreName("fiction"), path: "/srv/f.txt", format: .text)
        #expect(config.stateDirectory(for: spec, environment: [:]) == "/srv/.f.txt.history")
        config.stateDirectory = "/var/lib/booksd"
        #expect(config.stateDirectory(for: spec, environment: [:]) == "/var/lib/booksd/fiction")
        config.stateDirectory = nil
        #expect(config.stateDirectory(for: spec, environment: ["STATE_DIRECTORY": "/s"]) == "/s/fiction")
        config.stateDirectory = "none"
        #expect(config.stateDirectory(for: spec, environment: [:]) == nil)
    }
}
