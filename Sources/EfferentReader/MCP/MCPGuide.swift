/// The guide an agent reads before it answers from the archive (`efferent://guide`, an MCP
/// resource): the traps of Apple Health data, as the answers handle them.
enum MCPGuide {
    static let uri = "efferent://guide"

    static let text = """
        # How to read this health archive

        Start with `phone_data_overview`: every metric the archive holds, its kind, unit and the days it covers.

        ## Totals and readings
        - **Totals** (kind `total`: steps, activeEnergy, distance, flights, …) are sums per day or hour, already counted once across the iPhone and the Watch. Use `phone_data_daily`, `_statistics` or `_compare`. Never add up `_samples` of a total: the iPhone and the Watch record the same steps, and their samples overlap.
        - **Readings** (kind `record`: heartRate, bodyMass, oxygenSaturation, …) are individual measurements. Use `_samples`, `_statistics`, `_latest`; `_daily` gives each day's minimum, mean and maximum. A mean of daily means is not the mean of the readings: `_statistics` and `_compare` average the readings themselves.
        - Apple's activity rings (`_rings`) are Apple's own figures for the day; they can differ a little from the activeEnergy total.

        ## Days and times
        - Days are local days of the archive's time zone. Instants are printed on that day's wall clock with their offset (2025-06-01T07:00:00+02:00).
        - A night is named by the evening it began (`_sleep`): the night of 2025-06-01 ends on the morning of 2025-06-02.
        - `since` alone runs through today. Days outside the archive are left out, and the answer's `note` says so.
        - The writer uploads empty days up to today, so days inside the archive can hold no data. Every answer over days carries `coverage`: for each metric asked, the days with data, the first and last of them, the days missing, and the nearest data before and after (`dataBefore`, `dataAfter`). When the days hold none, `coverage.note` and the answer's `note` say where the data is ("your steps end on 2017-12-31"): tell the person that, rather than reporting zero.

        ## Sleep
        - Stages from several sources are joined as unions, never summed; inBed is time in bed, asleep the sum of asleep stages. Naps are listed apart.
        - A night with only time in bed (an iPhone without a Watch records no stages) has no asleep figure: its `asleepHours` is null, it counts in `nightsInBedOnly`, and the mean leaves it out. `asleepHours.nights` says how many nights the mean averages; say so when it is fewer than the nights recorded.

        ## Units
        - Wire units: kcal, m, count/min, kg, ms, mL, degC. Fractions of 1 for percentages: oxygenSaturation 0.97 is 97 %.
        - Metrics named `<type>.<part>` are parts of one sample: workout.heartRate.average, workoutRoute.latitude, electrocardiogram.voltage (512 a second).

        ## Pages
        - A long answer comes a page at a time: `next.since` and `next.until` (days) or `next.offset` (rows) say where the rest starts. Never present a page as the whole; `matched` and `total` give the whole count.

        ## What is left out
        - Metadata other than measurements, State of Mind labels and associations, clinical records, and anything the overview does not list. An answer that cannot cover what was asked says so in its `note`.
        """
}
