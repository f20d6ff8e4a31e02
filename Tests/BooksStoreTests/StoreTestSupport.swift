import BooksCore
import BooksStore
import Testing

/// The bytes of a file with `rows`, each ended by `\n`.
func lines(_ rows: [String]) -> [UInt8] { Array(rows.map { $0 + "\n" }.joined().utf8) }

/// What `store` holds, read now, with its identity (an issue is recorded, and nil returned, when
/// there is no readable file).
func fetchedContent(_ store: some BookStore) -> (canonical: [UInt8], identity: FileIdentity)? {
    guard case .present(let canonical, let identity) = store.fetch() else {
        Issue.record("the store's file could not be read")
        return nil
    }
    return (canonical, identity)
}
