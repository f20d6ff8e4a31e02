import BooksCore

/// The NATS names of one store: subjects, stream, bucket, message ids and bucket keys.
///
/// Pure. `prefix` and `store` are restricted to `A-Z a-z 0-9 _ -` (see `isValidName`), so every
/// name built here is a valid subject token, stream name and bucket name.
public struct NATSNaming: Sendable, Equatable {
    /// The subject prefix (`nats_prefix`, default `books`).
    public let prefix: String
    /// The store's name (`default` for a daemon serving one `--file`).
    public let store: String

    /// Names for `store` under `prefix`; both must satisfy `isValidName`.
    public init(prefix: String, store: String) {
        precondition(Self.isValidName(prefix) && Self.isValidName(store), "invalid NATS prefix or store name")
        self.prefix = prefix
        self.store = store
    }

    /// True for a non-empty name of at most 64 characters from `A-Z a-z 0-9 _ -`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy { Self.isPlain($0) }
    }

    /// `<prefix>.<store>.changes`: one message per change set.
    public var changesSubject: String { Self.changesSubject(prefix: prefix, store: store) }
    /// `<prefix>.<store>.api`: requests (queue group `booksd`).
    public var apiSubject: String { Self.apiSubject(prefix: prefix, store: store) }
    /// The queue group every booksd answering requests joins.
    public static let apiQueue = "booksd"
    /// The JetStream stream holding `changesSubject`: `<prefix>_<store>_changes`.
    public var streamName: String { Self.streamName(prefix: prefix, store: store) }
    /// The key-value bucket mirroring the current books: `<prefix>_<store>`.
    public var bucketName: String { Self.bucketName(prefix: prefix, store: store) }
    /// The key-value bucket holding the store's publishing lease (one booksd publishes a store at a
    /// time): `<prefix>_<store>_owner`.
    public var ownerBucketName: String { bucketName + "_owner" }

    /// `Nats-Msg-Id` of a change set: `<store>:<epoch>:<seq>`; of a snapshot marker, with `:snapshot`;
    /// of part `k` of `n` of a change set split to fit the server's `max_payload`, with `:p<k>-<n>`;
    /// then, with `token`, `:t<token>` (booksd adds a token nobody else can predict, so that no
    /// message published ahead of booksd can take the id of one of its messages).
    public func messageID(
        epoch: String, seq: UInt64, snapshot: Bool = false, part: NATSMessagePart? = nil, token: String? = nil
    ) -> String {
        var id = "\(store):\(epoch):\(seq)"
        if snapshot { id += ":snapshot" }
        if let part { id += ":p\(part.index)-\(part.count)" }
        if let token { id += ":t\(token)" }
        return id
    }

    /// The position a `Nats-Msg-Id` written by `messageID` names, or nil for another store's id or
    /// a malformed one. A change set's part before its last names the seq before it (the stream
    /// holds that change set whole, not this one).
    public func position(fromMessageID id: String) -> ResumePoint? {
        guard let parsed = parse(messageID: id) else { return nil }
        guard let part = parsed.part, part.index < part.count else {
            return ResumePoint(epoch: parsed.epoch, seq: parsed.seq)
        }
        return parsed.seq == 0 ? nil : ResumePoint(epoch: parsed.epoch, seq: parsed.seq - 1)
    }

    /// The fields of a `Nats-Msg-Id` written by `messageID` (the token left out), or nil for
    /// another store's id or a malformed one.
    public func parse(messageID id: String) -> (epoch: String, seq: UInt64, snapshot: Bool, part: NATSMessagePart?)? {
        let fields = id.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count >= 3, fields[0] == store, !fields[1].isEmpty, let seq = UInt64(fields[2]) else { return nil }
        var snapshot = false
        var part: NATSMessagePart?
        var token = false
        for field in fields.dropFirst(3) {
            if field == "snapshot", !snapshot, part == nil, !token {
                snapshot = true
            } else if field.first == "p", part == nil, !snapshot, !token,
                let parsed = NATSMessagePart(field.dropFirst())
            {
                part = parsed
            } else if field.first == "t", field.count > 1, !token {
                token = true
            } else {
                return nil
            }
        }
        return (String(fields[1]), seq, snapshot, part)
    }

    /// A book id as a bucket key: bytes outside `A-Z a-z 0-9 _ -` become `=XX` (hex), so every id
    /// maps to a distinct valid key and `bookID(fromKey:)` gives it back.
    public static func key(forBookID id: String) -> String {
        var key: [UInt8] = []
        key.reserveCapacity(id.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in id.utf8 {
            if isPlain(byte) {
                key.append(byte)
            } else {
                key.append(UInt8(ascii: "="))
                key.append(hex[Int(byte >> 4)])
                key.append(hex[Int(byte & 0xF)])
            }
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// The book id a key made by `key(forBookID:)` stands for; nil for a key it cannot have made.
    public static func bookID(fromKey key: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = key.utf8.makeIterator()
        while let byte = iterator.next() {
            if isPlain(byte) {
                bytes.append(byte)
                continue
            }
            guard byte == UInt8(ascii: "="), let high = iterator.next().flatMap(hexValue),
                let low = iterator.next().flatMap(hexValue)
            else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func isPlain(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The same names for a prefix and store that are not checked (`isValidName`): what a client
/// builds from the names its user typed, so that a name booksd cannot serve is answered by the
/// server (no stream, no responder) instead of stopping the client. The one spelling of each.
extension NATSNaming {
    /// `<prefix>.<store>.changes`.
    public static func changesSubject(prefix: String, store: String) -> String { "\(prefix).\(store).changes" }
    /// `<prefix>.<store>.api`.
    public static func apiSubject(prefix: String, store: String) -> String { "\(prefix).\(store).api" }
    /// `<prefix>_<store>_changes`.
    public static func streamName(prefix: String, store: String) -> String { "\(prefix)_\(store)_changes" }
    /// `<prefix>_<store>`.
    public static func bucketName(prefix: String, store: String) -> String { "\(prefix)_\(store)" }

    /// The store whose stream is `streamName` under `prefix` (`<prefix>_<store>_changes`), or nil for
    /// another prefix's stream or another stream.
    public static func store(ofStreamName streamName: String, prefix: String) -> String? {
        let (head, tail) = ("\(prefix)_", "_changes")
        guard streamName.hasPrefix(head), streamName.hasSuffix(tail), streamName.count > head.count + tail.count else {
            return nil
        }
        return String(streamName.dropFirst(head.count).dropLast(tail.count))
    }
}

/// Which part of a change set a stream message holds (a change set larger than the server's
/// `max_payload` is split into several messages with the same seq): `index` of `count`, from 1.
public struct NATSMessagePart: Sendable, Hashable {
    /// The part's number, 1 to `count`.
    public var index: Int
    /// How many parts the change set has (at least 2).
    public var count: Int

    /// Part `index` of `count`; nil unless `1 <= index <= count` and `count >= 2`.
    public init?(index: Int, count: Int) {
        guard count >= 2, index >= 1, index <= count else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `<index>-<count>` (as in a message id).
    init?(_ text: Substring) {
        let numbers = text.split(separator: "-", omittingEmptySubsequences: false)
        guard numbers.count == 2, let index = Int(numbers[0]), let count = Int(numbers[1]) else { return nil }
        self.init(index: index, count: count)
    }
}
