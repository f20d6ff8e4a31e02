// libFuzzer target: the client's fast message decoder (FastMessageDecoder over JSONScanner).
// Built by scripts/fuzz.sh together with the BooksCore and BooksProtocol sources.
//
// Input: one line from a (possibly hostile) daemon.
// Properties checked:
//  - decoding never crashes, whatever the bytes;
//  - whenever the fast path returns a message, Foundation's JSONDecoder returns the same one;
//  - a decoded message re-encoded by MessageEncoder decodes (fast path) to the same message.
import FoundationEssentials

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = Array(UnsafeBufferPointer(start: data, count: size))
    guard let fast = line.withUnsafeBufferPointer(FastMessageDecoder.decode) else { return 0 }
    let reference = try? MessageDecoder().decodeWithFoundation(line)
    check(reference == fast, "fast path and JSONDecoder disagree on \(String(decoding: line, as: UTF8.self))")
    let encoded: [UInt8]
    switch fast {
    case .reply(let reply): encoded = MessageEncoder.encode(reply)
    case .event(let event): encoded = MessageEncoder.encode(event)
    }
    let again = encoded.withUnsafeBufferPointer(FastMessageDecoder.decode)
    check(again == fast, "re-encoded message decodes differently: \(String(decoding: encoded, as: UTF8.self))")
    return 0
}

/// `precondition` that keeps its message in -O builds.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError(message()) }
}
