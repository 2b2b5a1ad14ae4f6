import Foundation

/// scripts/bench: `efferent-bench [core] [server] [postgres] [edits] [loop] [sql] [receive] [dashboard] [import] [exhaustion] [answers] [share] [keys]` (all when none is named);
/// `index` only when named (hours at the counts).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "index-answers" {
    // A child of `index`: one fresh reader's answers over a mirror whose index the parent damaged.
    IndexDamageBench.child(CommandLine.arguments[2])
    exit(0)
}
let arguments = Set(CommandLine.arguments.dropFirst())
let all = arguments.isEmpty
do {
    if all || arguments.contains("core") { try CoreBench.run() }
    if all || arguments.contains("server") { try ServerBench.run() }
    if all || arguments.contains("postgres") { try PostgresBench.run() }
    if all || arguments.contains("edits") { try EditBench.run() }
    if all || arguments.contains("loop") { try await LoopBench.run() }
    if all || arguments.contains("sql") { try await SQLBench.run() }
    if all || arguments.contains("receive") { try await ReceiveBench.run() }
    if all || arguments.contains("dashboard") { try await DashboardBench.run() }
    if all || arguments.contains("import") { try await ImportBench.run() }
    if all || arguments.contains("exhaustion") { try await ExhaustionBench.run() }
    if all || arguments.contains("answers") { try await AnswersBench.run() }
    if all || arguments.contains("share") { try await ShareBench.run() }
    if arguments.contains("index") { try await IndexDamageBench.run() }
    if all || arguments.contains("keys") { try await KeysBench.run() }
} catch {
    FileHandle.standardError.write(Data("bench failed: \(error)\n".utf8))
    exit(1)
}
