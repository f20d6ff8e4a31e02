/// A change another process made to the recorded directory (a hand edit by the test), which the
/// trace of the daemon cannot show: `TraceInterpreter` places its operations right after the
/// output marker that announced it.
public enum InjectedEdit: Sendable, Hashable {
    /// `name` replaced by a new file holding `bytes`: written under `temporary` (created `0644`,
    /// no sync) and renamed over `name`, as `sed -i` and many editors do.
    case replace(name: String, bytes: [UInt8], temporary: String)
}
