/// The known name nearest to one that was mistyped (`stepz` → `steps`, `groupBy` → `group_by`),
/// for refusals that say what was probably meant.
public enum NearestName {
    /// The name fewest edits away, case and `_` ignored, when it is near enough to be a slip: at
    /// most a third of the asked name's length (two edits for short names). The same words in
    /// another order (`walkingRunningDistance` → `distanceWalkingRunning`) count as one edit, since
    /// HealthKit's names put the quantity first where people say it last. Ties go to the
    /// alphabetically first; nil when none is that near.
    public static func closest(to asked: String, in names: some Sequence<String>) -> String? {
        let target = folded(asked)
        let targetWords = words(asked)
        let limit = max(2, target.count / 3)
        var best: (distance: Int, name: String)?
        for name in names.sorted() {
            var distance = editDistance(target, folded(name))
            if distance > 1, targetWords.count > 1, words(name) == targetWords { distance = 1 }
            if distance <= limit, distance < (best?.distance ?? Int.max) { best = (distance, name) }
        }
        return best?.name
    }

    /// A name's words, lower-cased and sorted: split where a capital starts one, or at `_`, `-`
    /// and `.`.
    static func words(_ name: String) -> [String] {
        var words = [String]()
        var current = ""
        for character in name {
            if character == "_" || character == "-" || character == "." {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if character.isUppercase, !current.isEmpty {
                words.append(current)
                current = String(character).lowercased()
            } else {
                current += character.lowercased()
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.sorted()
    }

    private static func folded(_ name: String) -> [Unicode.Scalar] {
        Array(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }

    /// Levenshtein distance: insertions, deletions and substitutions each cost one.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
