// The dashboard's pages, drawn from the JSON API efferent serves beside them. No framework and
// nothing from another address: every node is built with the DOM (text as text, never markup),
// every chart is the SVG the server's renderer drew, read out under the pointer and from the keys.
"use strict";

(function () {
  const main = document.getElementById("main");
  const statusLine = document.getElementById("status");

  // ---------------------------------------------------------------- theme

  const themes = ["auto", "light", "dark"];
  function applyTheme(theme) {
    if (theme === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    const button = document.getElementById("theme");
    if (button) button.textContent = "Theme: " + theme;
  }
  function storedTheme() {
    try { return localStorage.getItem("efferent-theme") || "auto"; } catch (e) { return "auto"; }
  }
  applyTheme(storedTheme());
  document.getElementById("theme").addEventListener("click", function () {
    const next = themes[(themes.indexOf(storedTheme()) + 1) % themes.length];
    try { localStorage.setItem("efferent-theme", next); } catch (e) { /* private mode: the choice lasts this page */ }
    applyTheme(next);
  });

  // ---------------------------------------------------------------- DOM helpers

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) continue;
      node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
    }
    return node;
  }

  // The server's SVG, parsed as XML (never as HTML) and adopted into the page.
  function svg(text) {
    const parsed = new DOMParser().parseFromString(text, "image/svg+xml");
    const root = parsed.documentElement;
    if (root.nodeName !== "svg") return el("p", { class: "error" }, "This chart could not be drawn.");
    return document.importNode(root, true);
  }

  function table(headers, rows, attributes) {
    return el("div", { class: "table-wrap" },
      el("table", attributes || {},
        el("thead", {}, el("tr", {}, headers.map((h) => el("th", { class: h.num ? "num" : null, scope: "col" }, h.text || h)))),
        el("tbody", {}, rows)));
  }

  function query(params) {
    const parts = [];
    for (const [name, value] of Object.entries(params)) {
      if (value === null || value === undefined || value === "") continue;
      parts.push(encodeURIComponent(name) + "=" + encodeURIComponent(value));
    }
    return parts.length ? "?" + parts.join("&") : "";
  }

  function chartWidth() {
    return Math.max(240, Math.min(2400, Math.round(main.clientWidth || 800)));
  }

  function show(...nodes) {
    main.replaceChildren(...nodes.flat(Infinity).filter((node) => node !== null && node !== undefined && node !== false));
  }

  // A page that cannot be shown, in the app's own page: what went wrong in a sentence, and the
  // way back (the server answers a path it has no page for with this shell and its status).
  function fail(message) {
    document.title = "Not shown — Efferent";
    show(el("h1", {}, "This page cannot be shown"), el("p", { class: "error", role: "alert" }, message),
      el("p", {}, el("a", { href: "/" }, "Go to Today"), " · ", el("a", { href: "/catalogue" }, "See what the archive holds")));
  }

  // What a range holds of its metric, and where the data is when it holds none (the answers'
  // coverage), with a link to that data.
  function coverageNote(path, range, coverage, extra) {
    if (!coverage || !coverage.note) return null;
    return el("p", { class: "coverage", "data-coverage": "none" }, coverage.note,
      coverage.jump ? [" ", el("a", { class: "pill", href: path + query(Object.assign({ range: range.name, until: coverage.jump.until }, extra || {})) },
        coverage.jump.label + " →")] : null);
  }

  async function api(path) {
    const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok) {
      const sentence = body && body.error ? body.error : "the dashboard answered " + response.status;
      throw new Error(sentence.charAt(0).toUpperCase() + sentence.slice(1) + ".");
    }
    return body;
  }

  // ---------------------------------------------------------------- charts

  // A chart with its read-out: the pointer or the arrow keys pick a bin, and its label and value
  // are written under the chart (and announced to a screen reader).
  function chart(data, description) {
    const drawing = svg(data.svg);
    const readout = el("p", { class: "readout", "aria-live": "polite" }, data.empty ? "" : "Move over the chart, or focus it and use the arrow keys.");
    const box = el("div", {
      class: "chart-box", tabindex: data.empty ? null : "0", role: "group",
      "aria-label": data.title + (description ? ". " + description : "") + (data.empty ? "" : ". Arrow keys read out each value."),
    }, drawing);
    const wrapper = el("figure", { class: "chart-figure" }, box, readout);
    if (data.empty) return wrapper;
    const bins = data.bins;
    const [lower, upper] = data.domain;
    const frame = data.frame;
    const ns = "http://www.w3.org/2000/svg";
    const cursor = document.createElementNS(ns, "line");
    cursor.setAttribute("class", "c-cursor");
    cursor.setAttribute("y1", frame.top);
    cursor.setAttribute("y2", frame.top + frame.height);
    cursor.setAttribute("visibility", "hidden");
    drawing.appendChild(cursor);
    let current = -1;
    for (let i = bins.length - 1; i >= 0; i--) { if (bins[i].n) { current = i; break; } }

    function select(index) {
      if (index < 0 || index >= bins.length) return;
      current = index;
      const bin = bins[index];
      const middle = frame.left + ((bin.s + bin.e) / 2 - lower) / (upper - lower) * frame.width;
      cursor.setAttribute("x1", middle);
      cursor.setAttribute("x2", middle);
      cursor.setAttribute("visibility", "visible");
      readout.textContent = bin.label + ": " + (bin.n ? bin.text : "no data");
      readout.dataset.index = String(index);
    }
    function binAt(value) {
      let low = 0, high = bins.length - 1;
      while (low < high) {
        const middle = (low + high + 1) >> 1;
        if (bins[middle].s <= value) low = middle; else high = middle - 1;
      }
      return low;
    }
    drawing.addEventListener("pointermove", function (event) {
      const rect = drawing.getBoundingClientRect();
      if (!rect.width) return;
      const x = (event.clientX - rect.left) * (data.width / rect.width);
      if (x < frame.left || x > frame.left + frame.width) return;
      select(binAt(lower + (x - frame.left) / frame.width * (upper - lower)));
    });
    box.addEventListener("keydown", function (event) {
      const moves = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10 };
      if (event.key in moves) select(Math.max(0, Math.min(bins.length - 1, (current < 0 ? bins.length : current) + moves[event.key])));
      else if (event.key === "Home") select(0);
      else if (event.key === "End") select(bins.length - 1);
      else return;
      event.preventDefault();
    });
    box.addEventListener("focus", function () { if (current >= 0 && !readout.dataset.index) select(current); });
    return wrapper;
  }

  // Every bin that holds something, as a table: the numbers behind the chart, exact in data-value.
  function valuesTable(data) {
    const rows = data.bins.filter((bin) => bin.n).map((bin) => el("tr", {
      "data-first": bin.first, "data-last": bin.last,
      "data-value": bin.value !== undefined ? bin.value : bin.mean,
    }, el("td", {}, bin.label), el("td", {}, bin.text)));
    if (!rows.length) return null;
    return el("details", { class: "values" }, el("summary", {}, "Values (" + rows.length + ")"),
      table(["When", "Value"], rows, { class: "bins" }));
  }

  function rangeLinks(path, range, ranges, extra) {
    const links = ranges.map((name) => el("a", {
      class: "pill", href: path + query(Object.assign({ range: name, until: name === range.name || name === "ALL" ? null : range.until }, extra || {})),
      "aria-current": name === range.name ? "true" : null,
    }, name));
    const steps = [];
    if (range.previous) steps.push(el("a", { class: "pill", href: path + query({ range: range.name, until: range.previous }), rel: "prev" }, "← Earlier"));
    if (range.next) steps.push(el("a", { class: "pill", href: path + query({ range: range.name, until: range.next }), rel: "next" }, "Later →"));
    return [el("nav", { class: "ranges", "aria-label": "Range" }, links), el("p", { class: "sub range-label" }, range.label),
            steps.length ? el("nav", { class: "nav-range", "aria-label": "Earlier or later" }, steps) : null];
  }

  function params() {
    const found = {};
    new URLSearchParams(location.search).forEach((value, name) => { found[name] = value; });
    return found;
  }

  // ---------------------------------------------------------------- pages

  async function today() {
    const data = await api("/api/v1/pages/today" + query({ day: params().day }));
    const rings = data.rings;
    const ringList = el("ul", {}, rings.rings.map((ring) => el("li", { "data-ring": ring.key },
      el("span", { class: "swatch sw-" + ring.key }), ring.name + ": " + ring.text + (ring.percent !== null ? " (" + ring.percent + " %)" : ""))));
    const cards = data.headlines.concat([data.sleep]).map((item) => {
      const href = item.metric === "sleep" ? "/sleep" : "/metrics/" + encodeURIComponent(item.metric);
      return el("a", { class: "card", href: href, "data-metric": item.metric },
        el("div", { class: "title" }, item.title),
        el("div", { class: "value", "data-value": item.latest ? item.latest.value : null }, item.latest ? item.latest.text : "–"),
        el("div", { class: "detail" }, item.latest ? item.latest.when : "nothing recorded yet"),
        item.week ? el("div", { class: "detail" }, "7 days: " + item.week.text + " — " + item.week.note) : null);
    });
    const workouts = data.workouts.length
      ? table(["When", "Activity", { text: "Duration", num: true }, { text: "Distance", num: true }],
          data.workouts.map((w) => el("tr", {}, el("td", { class: "under", "data-label": "When" }, w.when),
            el("td", { class: "lead wrap", "data-label": "Activity" }, el("a", { href: "/workouts/" + w.start }, w.title)),
            el("td", { class: "num", "data-label": "Duration" }, w.duration), el("td", { class: "num", "data-label": "Distance" }, w.distance || "–"))),
          { class: "recent stack" })
      : el("p", { class: "muted" }, "No workouts in the last 30 days.");
    show(el("h1", {}, "Today"), el("p", { class: "sub" }, data.label),
      el("section", { class: "rings", "aria-label": "Activity rings" }, svg(rings.svg), el("div", {}, ringList,
        rings.note ? el("p", { class: "muted" }, rings.note) : null)),
      el("h2", {}, "Headlines"), el("div", { class: "cards" }, cards),
      el("h2", {}, "Recent workouts"), data.workoutsNote ? el("p", { class: "muted" }, data.workoutsNote) : null, workouts);
  }

  async function metric(name) {
    const p = params();
    const data = await api("/api/v1/pages/metric/" + encodeURIComponent(name) + query({ range: p.range, until: p.until, width: chartWidth() }));
    document.title = data.title + " — Efferent";
    const stats = data.statistics;
    const facts = [["Mean", stats.texts.mean], ["Lowest", stats.texts.min], ["Highest", stats.texts.max]];
    if (data.kind === "total") facts.push(["Total", stats.texts.total]);
    facts.push([data.kind === "total" ? "Days" : "Readings", String(stats.count)]);
    show(el("h1", {}, data.title),
      el("p", { class: "sub" }, data.metric + (data.unit.symbol ? ", shown in " + data.unit.symbol : "") +
        (data.firstDay ? " · in the archive from " + data.firstDay + " to " + data.lastDay : " · none in this archive")),
      rangeLinks("/metrics/" + encodeURIComponent(name), data.range, data.ranges),
      coverageNote("/metrics/" + encodeURIComponent(name), data.range, data.coverage),
      chart(data.chart, data.reads),
      el("dl", { class: "stats", "aria-label": "Statistics for the range" },
        facts.map(([term, value]) => el("div", { "data-stat": term.toLowerCase() }, el("dt", {}, term), el("dd", {}, value || "–")))),
      data.note ? el("p", { class: "muted" }, data.note) : null,
      valuesTable(data.chart));
  }

  function stageCells(stages, keys, names) {
    return keys.map((key) => el("td", { class: "num", "data-label": names[key], "data-stage": key, "data-hours": stages[key] !== undefined ? stages[key] : null },
      stages[key] !== undefined ? hours(stages[key]) : "–"));
  }

  function hours(value) {
    const minutes = Math.round(value * 60);
    if (minutes < 60) return minutes + " min";
    return Math.floor(minutes / 60) + " h" + (minutes % 60 ? " " + (minutes % 60) + " min" : "");
  }

  async function sleep() {
    const p = params();
    const data = await api("/api/v1/pages/sleep" + query({ range: p.range, until: p.until, width: chartWidth() }));
    const keys = ["asleepDeep", "asleepCore", "asleepREM", "asleepUnspecified", "awake", "inBed"];
    const names = { asleepDeep: "Deep", asleepCore: "Core", asleepREM: "REM", asleepUnspecified: "Unspecified", awake: "Awake", inBed: "In bed" };
    const used = keys.filter((key) => data.nights.some((night) => night.stages[key] !== undefined));
    const rows = data.nights.map((night) => el("tr", { "data-night": night.night },
      el("td", { class: "lead", "data-label": "Night" }, el("a", { href: "/sleep/" + night.night }, night.label)),
      el("td", { class: "num", "data-label": "Asleep", "data-hours": night.asleepHours }, night.asleep), stageCells(night.stages, used, names),
      el("td", { "data-label": "Bed time" }, night.from + "–" + night.to)));
    show(el("h1", {}, "Sleep"), rangeLinks("/sleep", data.range, data.ranges),
      coverageNote("/sleep", data.range, data.coverage),
      chart(data.chart, "Stacked stage hours per night"),
      data.asleep ? el("p", { class: "mean" }, data.asleep.text) : el("p", { class: "muted" }, "No time asleep recorded in this range."),
      rows.length ? table(["Night", { text: "Asleep", num: true }].concat(used.map((k) => ({ text: names[k], num: true }))).concat(["Bed time"]), rows, { class: "nights stack" }) : null);
  }

  async function night(day) {
    const data = await api("/api/v1/pages/night/" + encodeURIComponent(day) + query({ width: chartWidth() }));
    const steps = [el("a", { class: "pill", href: "/sleep/" + data.previous, rel: "prev" }, "← Night before")];
    if (data.next) steps.push(el("a", { class: "pill", href: "/sleep/" + data.next, rel: "next" }, "Night after →"));
    const nodes = [el("h1", {}, data.label), el("nav", { class: "nav-range" }, steps)];
    if (!data.recorded) {
      nodes.push(el("div", { class: "chart-box" }, svg(data.hypnogram.svg)), el("p", { class: "muted" }, "No sleep was recorded for this night."));
      show(...nodes);
      return;
    }
    const s = data.summary;
    nodes.push(el("dl", { class: "facts" },
      el("dt", {}, "Asleep"), el("dd", { "data-hours": s.asleepHours }, s.asleep),
      el("dt", {}, "In bed"), el("dd", {}, s.inBedHours !== null ? hours(s.inBedHours) : "not recorded"),
      el("dt", {}, "From"), el("dd", {}, s.from + " to " + s.to),
      el("dt", {}, "Pieces"), el("dd", {}, String(s.segments))));
    nodes.push(el("div", { class: "chart-box", role: "img", "aria-label": "Hypnogram" }, svg(data.hypnogram.svg)));
    nodes.push(el("h2", {}, "Stages"), table(["Stage", { text: "Time", num: true }],
      s.stageList.map((stage) => el("tr", { "data-stage": stage.key },
        el("td", {}, el("span", { class: "swatch sw-" + stage.key }), stage.name),
        el("td", { class: "num", "data-hours": stage.hours }, stage.text))), { class: "stages" }));
    show(...nodes);
  }

  async function workouts() {
    const p = params();
    const data = await api("/api/v1/pages/workouts" + query({ range: p.range, until: p.until }));
    // Each cell names its column (data-label), so a phone shows a workout as a stacked card.
    const rows = data.workouts.map((w) => el("tr", { "data-start": w.start },
      el("td", { "data-label": "When", class: "when under" }, w.when),
      el("td", { "data-label": "Activity", class: "activity lead" }, el("a", { href: "/workouts/" + w.start }, w.title)),
      el("td", { class: "num", "data-label": "Duration" }, w.duration),
      el("td", { class: "num", "data-label": "Distance", "data-meters": w.distanceMeters }, w.distance || "–"),
      el("td", { class: "num", "data-label": "Energy" }, w.energy || "–"),
      el("td", { class: "num", "data-label": "Heart rate" }, w.heartRate || "–")));
    show(el("h1", {}, "Workouts"), rangeLinks("/workouts", data.range, data.ranges), coverageNote("/workouts", data.range, data.coverage),
      el("p", {}, data.total + " workout" + (data.total === 1 ? "" : "s") +
        (data.byActivity.length ? ": " + data.byActivity.map((a) => a.count + " " + a.title.toLowerCase() + " (" + a.time + ")").join(", ") : ".")),
      rows.length ? table(["When", "Activity", { text: "Duration", num: true }, { text: "Distance", num: true },
        { text: "Energy", num: true }, { text: "Heart rate", num: true }], rows, { class: "workouts stack" }) : null);
  }

  async function workout(start) {
    const data = await api("/api/v1/pages/workout/" + encodeURIComponent(start) + query({ width: chartWidth() }));
    const w = data.workout;
    document.title = w.title + " — Efferent";
    const facts = [["When", w.when], ["Duration", w.duration], ["Distance", w.distance], ["Active energy", w.energy],
                   ["Heart rate", w.heartRate], ["Recorded by", w.source]];
    show(el("h1", {}, w.title), el("p", { class: "sub" }, w.when),
      el("dl", { class: "facts" }, facts.filter(([, v]) => v).map(([t, v]) => [el("dt", {}, t), el("dd", { "data-fact": t.toLowerCase() }, v)])),
      el("h2", {}, "Heart rate"), chart(data.heartRate, "Lowest to highest reading with the mean"),
      el("h2", {}, "Route"),
      data.route ? el("div", { class: "map" }, svg(data.route.svg)) : el("p", { class: "muted" }, "No route was recorded for this workout."),
      data.route ? el("p", {}, el("a", { href: data.route.gpx, download: "" }, "Download the route as GPX"), " (" + data.route.fixes + " GPS fixes)") : null);
  }

  async function catalogue() {
    const data = await api("/api/v1/pages/catalogue");
    // Names and codes wrap, so the table fits its column on a wide screen; on a phone each
    // metric is a card with every column named.
    const rows = data.metrics.map((m) => el("tr", { "data-metric": m.metric },
      el("td", { class: "lead wrap", "data-label": "Metric" }, m.page ? el("a", { href: m.page }, m.title) : m.title),
      el("td", { class: "under wrap", "data-label": "Name" }, el("code", {}, m.metric)),
      el("td", { "data-label": "Kind" }, m.kind), el("td", { class: "wrap", "data-label": "Unit" }, m.unit || "–"),
      el("td", { "data-label": "First day" }, m.firstDay), el("td", { "data-label": "Last day" }, m.lastDay),
      el("td", { class: "num", "data-label": "Days" }, String(m.daysCovered)),
      el("td", { class: "num", "data-label": "Events" }, m.events.toLocaleString("en"))));
    show(el("h1", {}, "Catalogue"),
      el("p", { class: "sub" }, data.days + " days mirrored" + (data.firstDay ? ", " + data.firstDay + " to " + data.lastDay : "") + "; " + data.metrics.length + " metrics."),
      table(["Metric", "Name", "Kind", "Unit", "First day", "Last day", { text: "Days", num: true }, { text: "Events", num: true }], rows, { class: "catalogue stack" }));
  }

  // ---------------------------------------------------------------- routing

  async function status() {
    try {
      const data = await api("/api/v1/status");
      statusLine.textContent = "Mirror: " + data.mirror.days + " days, synced " + data.mirror.age + " · " + data.sync.note +
        " · days in " + data.timeZone;
      statusLine.dataset.state = data.sync.state;
    } catch (error) {
      statusLine.textContent = error.message;
    }
  }

  const path = location.pathname;
  const routes = [
    [/^\/$/, "today", () => today()],
    [/^\/metrics\/([^/]+)$/, null, (m) => metric(decodeURIComponent(m[1]))],
    [/^\/sleep$/, "sleep", () => sleep()],
    [/^\/sleep\/(\d{4}-\d{2}-\d{2})$/, "sleep", (m) => night(m[1])],
    [/^\/workouts$/, "workouts", () => workouts()],
    [/^\/workouts\/([^/]+)$/, "workouts", (m) => workout(decodeURIComponent(m[1]))],
    [/^\/catalogue$/, "catalogue", () => catalogue()],
  ];
  status();
  for (const [pattern, nav, page] of routes) {
    const match = path.match(pattern);
    if (!match) continue;
    if (nav) {
      const link = document.querySelector('[data-nav="' + nav + '"]');
      if (link) link.setAttribute("aria-current", "page");
    }
    page(match).then(() => { document.body.dataset.ready = "true"; }, (error) => { fail(error.message); document.body.dataset.ready = "error"; });
    return;
  }
  fail("There is no page at " + path + ".");
  document.body.dataset.ready = "error";
})();
