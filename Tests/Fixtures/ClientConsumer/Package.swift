// swift-tools-version:6.0
import PackageDescription

/// A package outside BookSync's targets that uses the client library as a new user would: it
/// depends on the `BooksClient` product by path and imports nothing else from BookSync.
///
/// Built by `scripts/docs.sh` (and so by the docs test): `ClientConsumer` proves that the client's
/// public surface is self-contained; `DocListings` holds the code listings of
/// `Sources/BooksClient/BooksClient.docc`, extracted by `scripts/doc-listings.py` (generated, not
/// checked in), so that every listing of the documentation compiles.
let package = Package(
    name: "ClientConsumer",
    dependencies: [.package(name: "BookSync", path: "../../..")],
    targets: [
        .executableTarget(
            name: "ClientConsumer", dependencies: [.product(name: "BooksClient", package: "BookSync")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "DocListings", dependencies: [.product(name: "BooksClient", package: "BookSync")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
