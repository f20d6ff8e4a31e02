import BooksCore
import BooksNATS
import Glibc
import Testing

@testable import BooksClient

/// What a NATS client declares about itself on every request: this process, and the NATS user
/// of its options.
@Suite struct NATSDeclaredActorTests {
    @Test func theDeclaredActorIsThisProcessAndItsNATSUser() {
        var options = NATSConnectOptions(urls: ["nats://127.0.0.1:1"])
        let plain = NATSBooksClient.declaredActor(options: options)
        #expect(plain.uid == UInt32(getuid()) && plain.pid == getpid(), "\(plain)")
        #expect(plain.user != nil && plain.program?.isEmpty == false && plain.host?.isEmpty == false, "\(plain)")
        #expect(plain.natsUser == nil && plain.via == nil && plain.editor == nil, "\(plain)")
        options.credentialsFile = "/etc/nats/ops.creds"
        #expect(NATSBooksClient.declaredActor(options: options).natsUser == "ops.creds")
        options.user = "alice"
        options.password = "secret"
        #expect(NATSBooksClient.declaredActor(options: options).natsUser == "alice")
    }
}
