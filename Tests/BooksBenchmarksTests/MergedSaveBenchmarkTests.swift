import Testing

@testable import BooksBenchmarks

/// The merged-save benchmark's edit: one row's name replaced, that row's id, and another row's.
struct MergedSaveBenchmarkTests {
    @Test func renamingChangesOneNameAndNamesAnotherRow() {
        let file = Array("a|One|X\nb|Two|Y\nc|Three|Z\nd|Four|W\n".utf8)
        let edited = MergedSaveBenchmark.renaming(row: 1, in: file, to: "New")
        #expect(String(decoding: edited.bytes, as: UTF8.self) == "a|One|X\nb|New|Y\nc|Three|Z\nd|Four|W\n")
        #expect(edited.id == "b")
        #expect(edited.other == "d")
        #expect(MergedSaveBenchmark.contains(edited.bytes, "|New|"))
        #expect(!MergedSaveBenchmark.contains(edited.bytes, "|Two|"))
    }
}
