import EfferentCommandLine
import EfferentWriter
import Foundation

struct Check: Subcommand {
    static let spec = CommandSpec(
        name: "check",
        abstract: "Compare the daily totals Efferent computes with Apple's own (the export's activity summaries).",
        options: [PriorityOption.option])

    let priority: SourcePriority

    init(_ arguments: ParsedArguments) throws(UsageError) { priority = try PriorityOption.parse(arguments) }

    func run() async throws -> Int32 {
        let context = try WriterContext()
        let result = try TotalsCheck.run(builder: DayBuilder(store: context.store, priority: priority, hourlyFrom: nil))
        func line(_ name: String, _ metric: TotalsCheck.Metric, _ unit: String) -> String {
            guard metric.compared > 0 else { return "\(name): no activity summaries to compare with" }
            var text = "\(name): \(metric.agreeing) of \(metric.compared) days agree with Apple's"
            if let day = metric.worstDay { text += String(format: "; largest difference %.1f %@ on %@", metric.worst, unit, day.description) }
            return text
        }
        print(line("active energy", result.activeEnergy, "kcal"))
        print(line("exercise time", result.exerciseTime, "min"))
        // Days cut in the wrong zone disagree with Apple's by a slice of two days each: say why.
        if let warning = context.zoneWarning { note("warning: " + warning) }
        return 0
    }
}
