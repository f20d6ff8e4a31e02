// The client's public surface is self-contained: `import BooksClient` is enough.
//
// The client's public API is built from the model (`Book`, `ChangeSet`, `BookQuery`, … in
// BooksCore) and the wire types (`BookDraft`, `BookPatch`, `ResumePoint`, `ProtocolError`, … in
// BooksProtocol). A package that depends on the `BooksClient` product only must be able to name
// them without importing modules it did not declare, so they are re-exported here. (Declaring
// more products would still make every user import three modules; a re-export keeps one.)
// Of BooksNATS only the three types the NATS transport (`NATSBooksClient`, `NATSFeed`) takes are
// re-exported; the rest stays an implementation detail.
// Tests/Fixtures/ClientConsumer, a package outside BookSync's targets, checks it (scripts/docs.sh).
@_exported import BooksCore
@_exported import BooksProtocol

@_exported import struct BooksNATS.NATSConnectOptions
@_exported import class BooksNATS.NATSConnection
@_exported import enum BooksNATS.NATSDeliveryStart
