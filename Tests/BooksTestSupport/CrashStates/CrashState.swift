/// One state a power cut can leave a directory in (see `CrashStateEnumerator`).
public struct CrashState: Sendable {
    /// The directory as found after the reboot.
    public var image: DirectoryImage
    /// Labels of the `output` markers sent before the latest crash point that gives this state:
    /// what a client may have seen acknowledged, so what the state must hold.
    public var acknowledged: [String]
    /// The latest crash point (operations issued before the cut) that gives this state.
    public var crashPoint: Int
    /// How many metadata operations (journal prefix) were persisted in that case.
    public var journalPrefix: Int

    /// A state built by hand (e.g. the complete prefix a process crash leaves).
    public init(image: DirectoryImage, acknowledged: [String], crashPoint: Int, journalPrefix: Int) {
        self.image = image
        self.acknowledged = acknowledged
        self.crashPoint = crashPoint
        self.journalPrefix = journalPrefix
    }
}
