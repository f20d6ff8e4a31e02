// A new user's program: only `import BooksClient`. It inserts, renames and deletes a book while
// following the change feed, and prints each feed item (their readable descriptions).
//
//     ClientConsumer SOCKET
import BooksClient

let socket = CommandLine.arguments.dropFirst().first
let client = try await BooksClient.connect(socketPath: socket ?? BooksClient.defaultSocketPath().path)
let feed = client.changes(snapshot: false)
let follower = Task {
    var seen = 0
    do throws(BooksClientError) {
        for try await item in feed {
            print(item)
            if case .change = item { seen += 1 }
            if seen == 3 { break }
        }
    } catch {
        print("feed failed: \(error)")
    }
}
let inserted = try await client.insert([BookDraft(name: "The Dispossessed", author: "Ursula K. Le Guin")])
let id = inserted[0].id
let versioned = try await client.get([id])[0]
_ = try await client.update([BookPatch(id: id, name: "The Left Hand of Darkness", expectedVersion: versioned.version)])
try await client.delete([id])
await follower.value
client.close()

// The NATS transport's types are nameable too (not used here: no NATS server).
let natsOptions: NATSConnectOptions? = nil
let natsStart: NATSDeliveryStart? = nil
_ = (natsOptions, natsStart)
