import Testing

@testable import BooksDaemon

/// What a SIGHUP reload names when `nats_*` settings changed (they apply only at start).
@Suite struct NATSChangedKeysTests {
    @Test func theChangedNATSKeysAreNamedSecretsIncluded() {
        var old = NATSSettings()
        old.connection.urls = ["nats://a:4222"]
        old.connection.password = "one"
        var new = old
        #expect(ConfigurationKey.changedNATSKeys(from: old, to: new).isEmpty)
        new.prefix = "other"
        new.batchLimit = 1
        new.connection.password = "two"
        #expect(ConfigurationKey.changedNATSKeys(from: old, to: new) == ["nats_prefix", "nats_batch", "nats_password"])
        new = old
        new.connection.urls = []
        #expect(ConfigurationKey.changedNATSKeys(from: old, to: new) == ["nats_url"])
    }
}
