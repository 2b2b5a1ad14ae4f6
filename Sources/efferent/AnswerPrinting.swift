import EfferentCommandLine
import EfferentReader
import Foundation

// A refused question (an unknown name, a range backwards, a limit out of bounds) is a usage
// error: exit 64 like any other, so a script can tell it from a failure to answer.
extension AnswerError: ExitCodeError {
    public var exitCode: Int32 { isUsage ? 64 : 1 }
}

/// What the CLI says on stderr around an answer, so nothing is left out or empty in silence.
enum AnswerNotes {
    /// Names read otherwise than given, an empty answer, and for a page of samples how many rows
    /// matched, how many were printed and the command that writes them all.
    static func say(_ answer: any Answer, request: AnswerRequest, format: AnswerFormat, nameNotes: [String]) {
        for line in nameNotes { note(line) }
        if let empty = answer.emptyNote { note(empty) }
        guard let samples = answer as? SamplesAnswer, format != .json, samples.matched > 0 else { return }
        var line = "matched \(samples.matched), returned \(samples.events.count)"
        if samples.events.count < samples.matched {
            line += "; \(samples.matched - samples.events.count) rows were left out (the page is \(request.limit ?? DayRange.Limits.samplesDefaultLimit) rows). "
                + "All of them: efferent export samples --metric \(samples.metric) --since \(samples.range.since) --until \(samples.range.until) "
                + "--out \(samples.metric).csv"
        }
        note(line)
    }
}
