import Glibc

/// Why a replica cannot start.
public enum ReplicaError: Error, Sendable, CustomStringConvertible {
    /// Replicas are configured but `nats_url` is not.
    case needsNATS([String])
    /// The replica's missing file cannot be created.
    case cannotCreate(path: String, errno: Int32)

    public var description: String {
        switch self {
        case .needsNATS(let names):
            "replica \(names.joined(separator: ", ")) needs nats_url (the owner is reached over NATS JetStream)"
        case .cannotCreate(let path, let number):
            "cannot create the replica's file \(path): \(String(cString: strerror(number)))"
        }
    }
}
