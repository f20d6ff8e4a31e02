import BooksCore

@testable import booksctl

/// The parsed commands spelled as the tests compare them: `.list(options)` for
/// `Command(ListCommand(options: options))`, one per command type.
extension Command {
    static func subscribe(_ options: SubscribeOptions) -> Command { Command(SubscribeCommand(options: options)) }
    static func list(_ options: ListOptions) -> Command { Command(ListCommand(options: options)) }
    static func get(ids: [String], json: Bool) -> Command { Command(GetCommand(ids: ids, json: json)) }
    static func add(name: String, author: String, json: Bool = false) -> Command {
        Command(AddCommand(source: .arguments(name: name, author: author), json: json))
    }
    static func addFromInput(json: Bool) -> Command { Command(AddCommand(source: .standardInput, json: json)) }
    static func update(_ options: UpdateOptions) -> Command { Command(UpdateCommand(options: options)) }
    static func delete(ids: [String], expectVersion: UInt64?, json: Bool = false) -> Command {
        Command(DeleteCommand(ids: ids, expectVersion: expectVersion, json: json))
    }
    static func status(json: Bool) -> Command { Command(StatusCommand(json: json)) }
    static func check(paths: [String], format: BookFileFormat?, json: Bool) -> Command {
        Command(CheckCommand(paths: paths, format: format, json: json))
    }
    static var ping: Command { Command(PingCommand()) }
    static func stores(json: Bool) -> Command { Command(StoresCommand(json: json)) }
    static func conflicts(json: Bool) -> Command { Command(ConflictsCommand(json: json)) }
    static func resolve(id: String, take: ConflictSide, json: Bool) -> Command {
        Command(ResolveCommand(id: id, take: take, json: json))
    }
    static var edit: Command { Command(EditCommand()) }
    static func log(_ options: LogOptions) -> Command { Command(LogCommand(options: options)) }
    static func show(seq: UInt64, json: Bool) -> Command { Command(ShowCommand(seq: seq, json: json)) }
    static func blame(ids: [String], json: Bool) -> Command { Command(BlameCommand(ids: ids, json: json)) }
    static func undo(seqs: [UInt64], force: Bool, json: Bool) -> Command {
        Command(UndoCommand(seqs: seqs, force: force, json: json))
    }
    static func help(_ topic: String?) -> Command { Command(HelpCommand(topic: topic)) }
    static func completion(_ shell: CompletionShell) -> Command { Command(CompletionCommand(shell: shell)) }
    static var version: Command { Command(VersionCommand()) }
}
