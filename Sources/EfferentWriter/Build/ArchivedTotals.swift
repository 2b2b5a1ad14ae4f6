/// A restored writer's totals for one day as the archive held them (`archived_total`): they were
/// summed from samples the archive does not carry, so they stand for their buckets until the
/// store's own samples sum to more. Samples imported or backfilled again sum to the same figure
/// (nothing counted twice); more of a bucket's samples than the archive counted make the larger
/// sum stand. Where the day's bucket was cut in another zone (`zone set` after a restore), the
/// day's archived hours summed stand for it.
struct ArchivedTotals {
    var dayTotals = [String: Double]()
    var hours = [String: [Int64: Double]]()
    var units = [String: String?]()

    init(_ rows: [(metric: String, isDay: Bool, start: Int64, end: Int64, value: Double, unit: String?)], dayStart: Int64) {
        for row in rows {
            if row.isDay {
                if row.start == dayStart { dayTotals[row.metric] = row.value }
            } else {
                hours[row.metric, default: [:]][row.start] = row.value
            }
            if units[row.metric] == nil { units[row.metric] = .some(row.unit) }
        }
    }

    /// The archive's total of `metric` over the day, nil when it held none.
    func day(_ metric: String) -> Double? {
        if let total = dayTotals[metric] { return total }
        return hours[metric].map { $0.values.reduce(0, +) }
    }

    /// The archive's figure unless the store's own sum is larger (beyond a double's last bits: the
    /// same samples summed in another order may differ there, and the archive's figure then stands).
    func standing(_ archived: Double?, _ computed: Double?) -> Double? {
        guard let archived else { return computed }
        guard let computed else { return archived }
        return computed > archived + 1e-9 * max(1, abs(archived)) ? computed : archived
    }
}
