import EfferentCore

/// `MetricMapping.map` and `Plausibility`'s limits for records that come in runs of one type and
/// unit, as an export's do: what the type and unit decide (the target, the conversion factor, a
/// part's precision, the metric's limits) is looked up once per run instead of once per record.
/// A few plans are kept, not one: a route fix's seven fields, an audiogram point's three, arrive
/// interleaved.
///
/// Only the common cases are remembered — a quantity or part whose unit converts by a factor, or
/// is the wire unit already — and their results are the ones `MetricMapping.map` gives, computed
/// the same way; anything else (no value, a non-finite one, a molar glucose unit, a refusal, a
/// part with an activity or a name kept as it came) goes through `MetricMapping.map` itself.
struct MappingRun {
    /// What one type and unit map to.
    private struct Plan {
        let kind: SourceRecord.Kind
        let type: String
        let unit: String?
        let target: MetricMapping.Target
        /// The factor into the wire unit; nil when there is no wire unit (a part kept as written).
        let factor: Double?
        /// A part's precision (`RecordParts.fixed`), in decimals.
        let decimals: Int?
        let limits: Plausibility.Limits

        func matches(_ record: SourceRecord) -> Bool { kind == record.kind && type == record.type && unit == record.unit }
    }

    /// The plans made last, the newest first.
    private var plans: [Plan] = []
    private var limits: [(target: MetricMapping.Target, limits: Plausibility.Limits)] = []
    /// More plans than a route fix has fields; fewer than would make the search cost more than a lookup.
    static let kept = 8

    /// The wire form of `record`, or why it cannot have one: `MetricMapping.map(record)`.
    mutating func map(_ record: SourceRecord) -> Result<MetricMapping.Mapped, LeftOut> {
        guard record.kind == .quantity || record.kind == .part, record.activity == nil, record.category == nil else {
            return MetricMapping.map(record)
        }
        if let value = record.value, !value.isFinite { return MetricMapping.map(record) }
        if record.kind == .quantity, record.value == nil { return MetricMapping.map(record) }
        // Strings of one run share their storage (`RecentString`, `RecordParts`), so these compare by pointer.
        let plan: Plan
        if let known = plans.first(where: { $0.matches(record) }) {
            plan = known
        } else {
            guard let fresh = Self.plan(for: record) else { return MetricMapping.map(record) }
            plan = fresh
            if plans.count == Self.kept { plans.removeLast() }
            plans.insert(fresh, at: 0)
        }
        var value = record.value
        if let number = value, let factor = plan.factor { value = number * factor }
        if let decimals = plan.decimals, let number = value {
            let scale = MetricMapping.powersOfTen[decimals]
            value = (number * scale).rounded() / scale
        }
        return .success(MetricMapping.Mapped(target: plan.target, value: value, stage: nil, activity: nil,
                                             duration: record.kind == .part ? record.duration : nil))
    }

    /// `Plausibility.Limits(target)`, remembered for the targets last asked for.
    mutating func limits(for target: MetricMapping.Target) -> Plausibility.Limits {
        if let plan = plans.first(where: { $0.target == target }) { return plan.limits }
        if let known = limits.first(where: { $0.target == target }) { return known.limits }
        let fresh = Plausibility.Limits(target)
        if limits.count == Self.kept { limits.removeLast() }
        limits.insert((target, fresh), at: 0)
        return fresh
    }

    /// The plan `MetricMapping.map` follows for `record`'s kind, type and unit, when it is one
    /// this run remembers.
    private static func plan(for record: SourceRecord) -> Plan? {
        switch record.kind {
        case .quantity:
            let target = MetricMapping.quantityTarget(record)
            guard let wire = target.unit, let factor = factor(from: record.unit ?? wire, to: wire) else { return nil }
            return Plan(kind: .quantity, type: record.type, unit: record.unit, target: target, factor: factor, decimals: nil,
                        limits: Plausibility.Limits(target))
        case .part:
            let fixed = RecordParts.fixed[record.type]
            let wire = fixed?.unit ?? HealthCatalogue.describe(record.type)?.unit ?? record.unit
            var factor: Double?
            if let wire {
                guard let known = Self.factor(from: record.unit ?? wire, to: wire) else { return nil }
                factor = known
            }
            let target = MetricMapping.Target(metric: record.type, isTotal: false, unit: wire)
            return Plan(kind: .part, type: record.type, unit: record.unit, target: target, factor: factor, decimals: fixed?.decimals,
                        limits: Plausibility.Limits(target))
        case .category, .workout:
            return nil
        }
    }

    /// The factor `UnitConversion.convert` multiplies by, when it converts by one (a unit that is
    /// its wire unit already returns the value itself, which multiplying by 1 does too).
    private static func factor(from unit: String, to wire: String) -> Double? {
        if let factor = UnitConversion.factors[wire]?[unit] { return factor }
        return unit == wire ? 1 : nil
    }
}
