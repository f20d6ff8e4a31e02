// libFuzzer target: the protocol LineFramer and RequestDecoder.
// Built by scripts/fuzz.sh together with the BooksCore and BooksProtocol sources.
//
// Input layout: byte 0 is a chunk size seed; the rest is the byte stream a client sends.
// Properties checked:
//  - framing in chunks of any size gives the same frames as framing all at once;
//  - no frame is longer than the limit or contains a newline;
//  - decoding never crashes; a decoded request re-encodes and decodes to the same request.
import FoundationEssentials

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = input.first else { return 0 }
    let stream = Array(input.dropFirst())
    let limit = 512

    var whole = LineFramer(maxLineLength: limit)
    let expected = whole.feed(stream)
    var chunked = LineFramer(maxLineLength: limit)
    var frames: [LineFramer.Frame] = []
    var offset = 0
    var step = Int(first % 17) + 1
    while offset < stream.count {
        let end = min(stream.count, offset + step)
        frames += chunked.feed(Array(stream[offset..<end]))
        offset = end
        step = step % 13 + 1
    }
    check(frames == expected, "chunked framing differs from whole framing")
    check(whole.bufferedByteCount <= limit + 1, "framer buffers more than the limit")

    let decoder = RequestDecoder(maxDepth: 32)
    for frame in frames {
        guard case .line(let line) = frame else { continue }
        check(line.count <= limit && !line.contains(0x0A), "frame too long or holds a newline")
        guard let request = try? decoder.decode(line) else { continue }
        guard let encoded = try? MessageEncoder.encode(request) else { continue }
        check(encoded.last == 0x0A, "encoded request does not end with a newline")
        guard let again = try? decoder.decode(Array(encoded.dropLast())) else {
            fatalError("re-encoded request does not decode: \(String(decoding: encoded, as: UTF8.self))")
        }
        check(again == request, "round trip changed the request: \(request) vs \(again)")
    }
    return 0
}

/// `precondition` that keeps its message in -O builds.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
