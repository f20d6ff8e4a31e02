import FoundationEssentials

/// The building blocks every hand-written object and array is made of: a member is `key` and its
/// value; an absent optional member is left out (the shape `Codable`'s `encodeIfPresent` gives).
extension JSONWriter {
    /// `{…}`: `members` writes the members, passing `first` to each `key`.
    @inline(__always) mutating func object(_ members: (inout JSONWriter, inout Bool) -> Void) {
        var first = true
        raw(UInt8(ascii: "{"))
        members(&self, &first)
        raw(UInt8(ascii: "}"))
    }

    /// `[…]`: each element of `values` written by `element`, separated by commas.
    @inline(__always) mutating func array<Values: Sequence>(
        _ values: Values, _ element: (inout JSONWriter, Values.Element) -> Void
    ) {
        raw(UInt8(ascii: "["))
        var first = true
        for value in values {
            if first { first = false } else { raw(UInt8(ascii: ",")) }
            element(&self, value)
        }
        raw(UInt8(ascii: "]"))
    }

    /// `"name":"value"`.
    @inline(__always) mutating func member(_ name: StaticString, _ value: String, first: inout Bool) {
        key(name, first: &first)
        string(value)
    }

    /// `"name":value`.
    @inline(__always) mutating func member(_ name: StaticString, _ value: UInt64, first: inout Bool) {
        key(name, first: &first)
        unsigned(value)
    }

    /// `"name":value`.
    @inline(__always) mutating func member(_ name: StaticString, _ value: Int, first: inout Bool) {
        key(name, first: &first)
        signed(value)
    }

    /// `"name":"value"`, or nothing when `value` is nil.
    @inline(__always) mutating func member(_ name: StaticString, ifPresent value: String?, first: inout Bool) {
        if let value { member(name, value, first: &first) }
    }

    /// `"name":value`, or nothing when `value` is nil.
    @inline(__always) mutating func member(_ name: StaticString, ifPresent value: UInt64?, first: inout Bool) {
        if let value { member(name, value, first: &first) }
    }

    /// `"name":value`, or nothing when `value` is nil.
    @inline(__always) mutating func member(_ name: StaticString, ifPresent value: Int?, first: inout Bool) {
        if let value { member(name, value, first: &first) }
    }

    /// `"name":value`, or nothing when `value` is nil.
    @inline(__always) mutating func member(_ name: StaticString, ifPresent value: Bool?, first: inout Bool) {
        guard let value else { return }
        key(name, first: &first)
        bool(value)
    }

    /// `"name":` and `value` as `write` writes it, or nothing when `value` is nil.
    @inline(__always) mutating func member<Value>(
        _ name: StaticString, ifPresent value: Value?, first: inout Bool, _ write: (inout JSONWriter, Value) -> Void
    ) {
        guard let value else { return }
        key(name, first: &first)
        write(&self, value)
    }

    /// `"name":` and `value` as `JSONEncoder` writes it (for the rare, small members not worth a
    /// hand-written form), or nothing when `value` is nil or cannot be encoded (only a non-finite
    /// floating-point number cannot).
    mutating func encodedMember<Value: Encodable>(_ name: StaticString, ifPresent value: Value?, first: inout Bool) {
        guard let value else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return }
        key(name, first: &first)
        bytes.append(contentsOf: data)
    }
}
