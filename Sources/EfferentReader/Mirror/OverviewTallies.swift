import EfferentCore

/// What the overview adds up of one metric on one day, as a day's tally line holds it.
enum DayTally {
    static func flags(kind: DayEvent.Kind, hour: Bool, day: Bool) -> UInt8 {
        (kind == .total ? 1 : 0) | (hour ? 2 : 0) | (day ? 4 : 0)
    }
}

/// The overview's line of each metric over any run of held days, from each day's tally line (the
/// index's tallies section, `DigestCoding.tally`): per metric, the positions of the days that hold
/// it with their events, kind, buckets and units, so a range is two binary searches and a walk of
/// integers. Metrics and units are their numbers in the index's table until a line is written:
/// adding up a decade hashes no name (the tally over decoded days merged a dictionary of units
/// per metric and day, a fifth of `efferent overview`).
final class OverviewTallies: Sendable {
    private struct Entry {
        let position: Int32
        let flags: UInt8
        let unitCount: UInt8
        let unitStart: Int32
        let wordCount: Int32
        let wordStart: Int32
        let events: Int
    }

    private let table: [String]
    private let days: [CalendarDay]
    /// The metrics held, as numbers in `table`, and each one's entries by ascending position.
    private let metrics: [Int]
    private let entries: [[Entry]]
    /// Every entry's units (number in `table`, events), each entry's in a run.
    private let units: [(unit: Int32, count: Int)]
    /// Every entry's words not yet known (number in `table`, events), each entry's in a run.
    private let words: [(unit: Int32, count: Int)]
    /// Every held day's lines, once asked for.
    let all: [String: OverviewAnswer.MetricLine]

    /// From each day of `days` (ascending) and its tally line, read with `table`; nil when a line
    /// does not read (a count past its bytes, a name not in the table or twice in a day).
    init?(days: [CalendarDay], lines: [ArraySlice<UInt8>], table: [String]) {
        guard days.count == lines.count, days.count < Int(Int32.max) else { return nil }
        self.table = table
        self.days = days
        var dense = [Int](repeating: -1, count: table.count)
        var lastSeen = [Int](repeating: -1, count: table.count)
        var metrics = [Int](), entries = [[Entry]](), units = [(unit: Int32, count: Int)](), words = [(unit: Int32, count: Int)]()
        for (position, line) in lines.enumerated() {
            var input = IndexReader(bytes: line, table: table)
            guard let count = input.count() else { return nil }
            for _ in 0..<count {
                guard let metric = input.int(), metric >= 0, metric < table.count, lastSeen[metric] != position,
                      let flags = input.byte(), flags <= 7, let events = input.tally(), let unitCount = input.count(each: 2), unitCount <= 255 else { return nil }
                lastSeen[metric] = position
                let unitStart = units.count
                for index in 0..<unitCount {
                    guard let unit = input.int(), unit >= 0, unit < table.count, let n = input.tally(),
                          !units[unitStart..<(unitStart + index)].contains(where: { $0.unit == Int32(unit) }) else { return nil }
                    units.append((Int32(unit), n))
                }
                let wordStart = words.count
                guard let wordCount = input.count(each: 2) else { return nil }
                for index in 0..<wordCount {
                    guard let word = input.int(), word >= 0, word < table.count, let n = input.tally(),
                          !words[wordStart..<(wordStart + index)].contains(where: { $0.unit == Int32(word) }) else { return nil }
                    words.append((Int32(word), n))
                }
                guard units.count < Int(Int32.max), words.count < Int(Int32.max) else { return nil }
                if dense[metric] < 0 {
                    dense[metric] = metrics.count
                    metrics.append(metric)
                    entries.append([])
                }
                entries[dense[metric]].append(Entry(position: Int32(position), flags: flags, unitCount: UInt8(unitCount),
                                                    unitStart: Int32(unitStart), wordCount: Int32(wordCount), wordStart: Int32(wordStart),
                                                    events: events))
            }
            guard input.atEnd else { return nil }
        }
        self.metrics = metrics
        self.entries = entries
        self.units = units
        self.words = words
        all = Self.lines(table: table, days: days, metrics: metrics, entries: entries, units: units, words: words, in: 0..<days.count)
    }

    /// The lines of the held days at `positions` (of the days given at init), by metric name.
    func lines(in positions: Range<Int>) -> [String: OverviewAnswer.MetricLine] {
        if positions.lowerBound <= 0 && positions.upperBound >= days.count { return all }
        return Self.lines(table: table, days: days, metrics: metrics, entries: entries, units: units, words: words, in: positions)
    }

    /// The metrics whose events carry buckets on some held day: totals, whatever the catalogue says.
    var bucketed: Set<String> { Set(all.values.filter { !$0.buckets.isEmpty }.map(\.metric)) }

    private static func lines(table: [String], days: [CalendarDay], metrics: [Int], entries: [[Entry]], units: [(unit: Int32, count: Int)],
                              words: [(unit: Int32, count: Int)], in positions: Range<Int>) -> [String: OverviewAnswer.MetricLine] {
        var lines = [String: OverviewAnswer.MetricLine]()
        guard !positions.isEmpty else { return lines }
        for (dense, metric) in metrics.enumerated() {
            let list = entries[dense]
            var low = 0, high = list.count
            while low < high {
                let middle = (low + high) / 2
                if Int(list[middle].position) < positions.lowerBound { low = middle + 1 } else { high = middle }
            }
            guard low < list.count, Int(list[low].position) < positions.upperBound else { continue }
            var flags: UInt8 = 0, covered = 0, events = 0
            var counts = [(unit: Int32, count: Int)](), wordCounts = [String: Int]()
            var at = low
            while at < list.count, Int(list[at].position) < positions.upperBound {
                let entry = list[at]
                flags |= entry.flags & 6
                covered += 1
                events += entry.events
                for index in Int(entry.unitStart)..<(Int(entry.unitStart) + Int(entry.unitCount)) {
                    let (unit, count) = units[index]
                    if let known = counts.firstIndex(where: { $0.unit == unit }) { counts[known].count += count } else { counts.append((unit, count)) }
                }
                for index in Int(entry.wordStart)..<(Int(entry.wordStart) + Int(entry.wordCount)) {
                    wordCounts[table[Int(words[index].unit)], default: 0] += words[index].count
                }
                at += 1
            }
            let first = list[low], last = list[at - 1]
            // The unit most events carry; ties go to the alphabetically first (as the overview decides).
            let unit = counts.map { (name: table[Int($0.unit)], count: $0.count) }.sorted { ($0.count, $1.name) > ($1.count, $0.name) }.first?.name
            let name = table[metric]
            lines[name] = OverviewAnswer.MetricLine(metric: name, kind: first.flags & 1 != 0 ? .total : .record, unit: unit,
                                                    unitNote: MetricCatalogue.note(for: name),
                                                    buckets: (flags & 4 != 0 ? ["day"] : []) + (flags & 2 != 0 ? ["hour"] : []),
                                                    firstDay: days[Int(first.position)], lastDay: days[Int(last.position)],
                                                    daysCovered: covered, events: events, wordsNotYetKnown: wordCounts)
        }
        return lines
    }
}
