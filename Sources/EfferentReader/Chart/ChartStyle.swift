/// How charts look: classes the renderer writes and the CSS that colours them, with a light and a
/// dark theme. The dashboard serves `rules` and sets the colours for its theme switch; a chart
/// saved as a file carries `rules` and `themes` in its own `<style>`.
public enum ChartStyle {
    /// Sleep stages in stacking order (bottom first) with the names the legend gives them; each
    /// stage's class is `st-<stage>`.
    public static let stages: [(key: String, name: String)] = [
        ("asleepDeep", "Deep"), ("asleepCore", "Core"), ("asleepREM", "REM"), ("asleepUnspecified", "Unspecified"),
        ("awake", "Awake"), ("unknown", "Unknown"),
    ]

    /// The rules, written against colour variables so a page can switch theme.
    public static let rules = """
    .chart{font:11px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
    .chart text{fill:var(--c-text)}
    .chart .c-title{font-size:14px;font-weight:600}
    .chart .c-grid line{stroke:var(--c-grid);stroke-width:1}
    .chart .c-axis{stroke:var(--c-axis);stroke-width:1}
    .chart .c-bg{fill:var(--c-bg)}
    .chart .c-bar{fill:var(--c-accent)}
    .chart .c-whisker{stroke:var(--c-accent-strong);stroke-width:1}
    .chart .c-band{fill:var(--c-band)}
    .chart .c-mean{fill:none;stroke:var(--c-accent-strong);stroke-width:1.5;stroke-linejoin:round}
    .chart .c-dot{fill:var(--c-accent-strong)}
    .chart .c-route{fill:none;stroke:var(--c-accent-strong);stroke-width:3;stroke-linejoin:round;stroke-linecap:round}
    .chart .c-route-start{fill:#2e9e4f}
    .chart .c-route-end{fill:#d64541}
    .chart .c-empty{font-size:14px;fill:var(--c-muted)}
    .chart .c-cursor{stroke:var(--c-text);stroke-width:1;stroke-dasharray:3 3}
    .chart .c-ring-track{fill:none;stroke:var(--c-grid);stroke-width:12}
    .chart .c-ring{fill:none;stroke-width:12;stroke-linecap:round}
    .chart .ring-move{stroke:var(--ring-move)}
    .chart .ring-exercise{stroke:var(--ring-exercise)}
    .chart .ring-stand{stroke:var(--ring-stand)}
    .chart .st-asleepDeep{fill:var(--st-deep)}
    .chart .st-asleepCore{fill:var(--st-core)}
    .chart .st-asleepREM{fill:var(--st-rem)}
    .chart .st-asleepUnspecified{fill:var(--st-asleep)}
    .chart .st-awake{fill:var(--st-awake)}
    .chart .st-inBed{fill:var(--st-inbed)}
    .chart .st-unknown{fill:var(--st-unknown)}

    """

    /// The colours of both themes: light by default, dark where the reader's system prefers it.
    /// Distinct hues for the stages (deep indigo, core blue, REM cyan, awake orange), not shades of one.
    public static let lightColours = "--c-bg:#ffffff;--c-text:#1d1d1f;--c-muted:#6e6e73;--c-grid:#e5e5ea;--c-axis:#8e8e93;"
        + "--c-accent:#4f8fdc;--c-accent-strong:#1f5fae;--c-band:rgba(79,143,220,.28);"
        + "--ring-move:#e5264f;--ring-exercise:#5ac626;--ring-stand:#1fb5d6;"
        + "--st-deep:#3b2a8c;--st-core:#2f6fdb;--st-rem:#33b8e8;--st-asleep:#16a394;--st-awake:#f07b2f;--st-inbed:#c9c9d6;--st-unknown:#9a9aa2"
    public static let darkColours = "--c-bg:#1c1c1e;--c-text:#f2f2f7;--c-muted:#a1a1a6;--c-grid:#3a3a3c;--c-axis:#8e8e93;"
        + "--c-accent:#4f8fdc;--c-accent-strong:#7db3f5;--c-band:rgba(125,179,245,.30);"
        + "--ring-move:#fa2d55;--ring-exercise:#a6ff00;--ring-stand:#00f0ff;"
        + "--st-deep:#8a78ff;--st-core:#4d8ff5;--st-rem:#7fdcff;--st-asleep:#3cc7bd;--st-awake:#ff9a52;--st-inbed:#5a5a68;--st-unknown:#8e8e93"

    /// For a page: both themes on the document, the reader's choice (`data-theme`) over the
    /// system's, then the rules.
    public static var pageStylesheet: String {
        ":root{\(lightColours)}\n:root[data-theme=dark]{\(darkColours)}\n"
            + "@media (prefers-color-scheme:dark){:root:not([data-theme=light]){\(darkColours)}}\n" + rules
    }

    /// For a chart saved on its own: both themes on the SVG element itself.
    static var themes: String {
        "svg.chart{\(lightColours)}\n@media (prefers-color-scheme:dark){svg.chart{\(darkColours)}}\n"
    }
}
