import EfferentSystem
import EfferentCommandLine
import EfferentCore
import Foundation

// Keys, health records, mirrors, exports and plots are the owner's alone: every file is 0600.
FileDurability.restrictNewFilesToOwner()

/// `efferent`: the writer and reader of an Efferent archive. Thin: each subcommand parses its
/// arguments, calls the libraries and prints.
let tool = CommandLineTool(
    name: "efferent",
    abstract: "Seal your Apple Health history into an archive you own, and read it back.",
    version: PackageVersion.text,
    subcommands: [Init.self, Handoff.self, Import.self, Push.self, Apply.self, Check.self, Zone.self, Receive.self, Connect.self, Sync.self, Status.self,
                  Overview.self, Daily.self, Statistics.self, Sleep.self, Workouts.self, Samples.self, Query.self, Ask.self, Read.self, Export.self, SQL.self,
                  Plot.self, Share.self, DashboardCommand.self, Write.self, Edits.self, MCP.self, Keys.self])
exit(await tool.run(Array(CommandLine.arguments.dropFirst())))
