// The shared-link viewer: reads a SMART Health Link from this page's fragment (never sent to the
// server), asks this server for the link's manifest, decrypts each file here with WebCrypto
// (AES-GCM, the key from the link) and DecompressionStream ("deflate-raw"), and shows the FHIR
// bundle: the summary, a chart per metric, sleep and workouts, and the bundle to download.
// Everything is built with the DOM from text; nothing from the files is ever parsed as HTML.
"use strict";
(() => {
  const main = document.getElementById("main");
  const statusLine = document.getElementById("status");
  const SVG = "http://www.w3.org/2000/svg";
  const METRIC = "urn:efferent:metric";
  const DAILY = "urn:efferent:daily";
  const LOINC = "http://loinc.org";
  const WORKOUT = "urn:efferent:workout";
  const DEFAULT_RECIPIENT = "a web browser (Efferent viewer)";

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value !== undefined && value !== null) node.setAttribute(name, value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function shape(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
    return node;
  }

  function say(text) { statusLine.textContent = text; }

  // What a test (or an accessibility tool) reads to know the page is drawn: `true`, `passcode`
  // (waiting for one) or `error`, with the milliseconds since the page started loading.
  function ready(state) {
    document.body.dataset.ready = state;
    document.body.dataset.readyMs = String(Math.round(performance.now()));
  }

  function fail(message) {
    say("");
    main.replaceChildren(el("p", { class: "error", role: "alert" }, message));
    ready("error");
  }

  function bytes(base64url) {
    const text = base64url.replace(/-/g, "+").replace(/_/g, "/");
    const padded = text + "=".repeat((4 - (text.length % 4)) % 4);
    const binary = atob(padded);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }

  const utf8 = new TextDecoder();

  // The link: `#shlink:/<base64url of the JSON payload>` (IG, "Construct a SMART Health Link Payload").
  function readLink() {
    const fragment = decodeURIComponent(location.hash || "");
    const at = fragment.indexOf("shlink:/");
    if (at < 0) return null;
    let payload;
    try {
      payload = JSON.parse(utf8.decode(bytes(fragment.slice(at + 8))));
    } catch (error) {
      throw new Error("The link after # is not a SMART Health Link: check that it was copied whole.");
    }
    if (typeof payload !== "object" || !payload || typeof payload.url !== "string" || typeof payload.key !== "string") {
      throw new Error("The link after # is not a SMART Health Link: it has no url and key.");
    }
    if (payload.v && payload.v > 1) throw new Error("This link is of a newer version (" + payload.v + ") than this viewer reads.");
    return payload;
  }

  // RFC 7516 §5.2 for `alg: dir`, `enc: A256GCM`, with `zip: DEF` (raw deflate) when present.
  async function decrypt(compact, key) {
    const parts = compact.split(".");
    if (parts.length !== 5 || parts[1] !== "") throw new Error("A file is not compact JWE with a direct key.");
    const header = JSON.parse(utf8.decode(bytes(parts[0])));
    if (header.alg !== "dir" || header.enc !== "A256GCM") throw new Error("A file is encrypted with " + header.alg + "/" + header.enc + ", which this viewer does not read.");
    const ciphertext = bytes(parts[3]), tag = bytes(parts[4]);
    const sealed = new Uint8Array(ciphertext.length + tag.length);
    sealed.set(ciphertext);
    sealed.set(tag, ciphertext.length);
    let plain;
    try {
      plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: bytes(parts[2]), additionalData: new TextEncoder().encode(parts[0]), tagLength: 128 },
        key, sealed);
    } catch (error) {
      throw new Error("A file does not open with this link's key: the link is damaged or belongs to other files.");
    }
    if (header.zip === "DEF") {
      const stream = new Blob([plain]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      plain = await new Response(stream).arrayBuffer();
    } else if (header.zip) {
      throw new Error("A file is compressed with " + header.zip + ", which this viewer does not read.");
    }
    return utf8.decode(plain);
  }

  async function start() {
    let link;
    try {
      link = readLink();
    } catch (error) {
      return fail(error.message);
    }
    if (!link) {
      say("");
      main.replaceChildren(el("h1", {}, "Shared health data"),
        el("p", {}, "This page opens SMART Health Links made with efferent share: the address you were given ends in #shlink:/…. "
          + "Open that whole address; the part after # stays in your browser."));
      ready("true");
      return;
    }
    const flags = typeof link.flag === "string" ? link.flag : "";
    let manifestURL;
    try {
      manifestURL = new URL(link.url);
    } catch (error) {
      return fail("This link's manifest address is not a URL.");
    }
    if (manifestURL.origin !== location.origin) {
      return fail("This link's data is kept by another service (" + manifestURL.host + "). Open it with that service's viewer, "
        + "or with any app that reads SMART Health Links.");
    }
    if (flags.includes("U")) return fail("This link points straight at one file (flag U), which this viewer does not open.");
    if (!window.crypto || !crypto.subtle) {
      return fail("This browser decrypts only on a secure page: open the link's https:// address (or on the machine that serves it).");
    }
    if (typeof DecompressionStream === "undefined") return fail("This browser cannot decompress the files (DecompressionStream); use a current browser.");
    if (typeof link.exp === "number" && link.exp * 1000 < Date.now()) {
      return fail("This link expired on " + new Date(link.exp * 1000).toLocaleString() + "; ask the person who shared it for a new one.");
    }
    let key;
    try {
      const raw = bytes(link.key);
      if (raw.length !== 32) throw new Error();
      key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["decrypt"]);
    } catch (error) {
      return fail("This link's key is damaged: it should be 43 characters of base64url.");
    }
    if (flags.includes("P")) return askPasscode(link, key);
    return open(link, key, DEFAULT_RECIPIENT, undefined);
  }

  function askPasscode(link, key, notice) {
    say("");
    const passcode = el("input", { id: "passcode", name: "passcode", type: "password", autocomplete: "off", required: "required" });
    const who = el("input", { id: "recipient", name: "recipient", type: "text", autocomplete: "name", placeholder: "Dr Jane Doe, Riverside Practice" });
    const form = el("form", { class: "open" },
      el("h1", {}, link.label || "Shared health data"),
      el("p", {}, "The person who shared this link gave it a passcode. Type it to open the data."),
      notice ? el("p", { class: "error", role: "alert" }, notice) : null,
      el("label", { for: "passcode" }, "Passcode"), passcode,
      el("label", { for: "recipient" }, "Your name or practice (optional; the person who shared this sees it)"), who,
      el("button", { type: "submit" }, "Open"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      open(link, key, who.value.trim() || DEFAULT_RECIPIENT, passcode.value);
    });
    main.replaceChildren(form);
    passcode.focus();
    ready("passcode");
  }

  async function open(link, key, recipient, passcode) {
    say("Asking for the link's files…");
    const request = { recipient: recipient, embeddedLengthMax: 4000000 };
    if (passcode !== undefined) request.passcode = passcode;
    let response, answer;
    try {
      response = await fetch(link.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request),
        cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
      answer = await response.json().catch(() => ({}));
    } catch (error) {
      return fail("The server that keeps this link did not answer; try again in a moment.");
    }
    if (response.status === 401) {
      const left = typeof answer.remainingAttempts === "number" ? answer.remainingAttempts : null;
      const sentence = answer.error || "That passcode is not this link's.";
      return askPasscode(link, key, left === null ? sentence : sentence + " (" + left + (left === 1 ? " try" : " tries") + " left)");
    }
    if (!response.ok) return fail(answer.error || ("The server answered " + response.status + "."));
    const files = Array.isArray(answer.files) ? answer.files : [];
    if (files.length === 0) return fail("The link lists no files.");
    const texts = [];
    for (let index = 0; index < files.length; index++) {
      const file = files[index];
      say("Decrypting file " + (index + 1) + " of " + files.length + "…");
      let compact = file.embedded;
      if (typeof compact !== "string") {
        const fetched = await fetch(file.location, { cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" });
        if (!fetched.ok) {
          const refusal = await fetched.json().catch(() => ({}));
          return fail(refusal.error || "A file of this link could not be fetched (" + fetched.status + ").");
        }
        compact = (await fetched.text()).trim();
      }
      try {
        texts.push(await decrypt(compact, key));
      } catch (error) {
        return fail(error.message);
      }
    }
    let bundles;
    try {
      bundles = texts.map((text) => JSON.parse(text));
    } catch (error) {
      return fail("A decrypted file is not JSON.");
    }
    render(link, bundles, texts);
    say("Decrypted in this browser from " + files.length + " file" + (files.length === 1 ? "" : "s") + ".");
    ready("true");
  }

  // ---- What the bundle holds ----

  function codes(concept) { return (concept && Array.isArray(concept.coding)) ? concept.coding : []; }
  function code(concept, system) { const found = codes(concept).find((c) => c.system === system); return found ? found.code : undefined; }
  function dateOf(resource) {
    if (resource.effectiveDateTime) return resource.effectiveDateTime.slice(0, 10);
    if (resource.effectivePeriod && resource.effectivePeriod.start) return resource.effectivePeriod.start.slice(0, 10);
    return undefined;
  }
  function isDay(text) { return typeof text === "string" && /^\d{4}-\d{2}-\d{2}/.test(text); }
  function dayNumber(date) { return Math.round(Date.UTC(+date.slice(0, 4), +date.slice(5, 7) - 1, +date.slice(8, 10)) / 86400000); }
  function dateText(number) { return new Date(number * 86400000).toISOString().slice(0, 10); }
  function formatNumber(value) {
    const size = Math.abs(value);
    const digits = size >= 100 ? 0 : size >= 10 ? 1 : 2;
    return value.toLocaleString(undefined, { maximumFractionDigits: digits });
  }
  function component(resource, predicate) {
    const found = (resource.component || []).find((c) => predicate(c.code));
    return found && found.valueQuantity ? found.valueQuantity.value : undefined;
  }

  function render(link, bundles, texts) {
    const documentBundle = bundles.find((b) => b.type === "document") || bundles[0];
    const entries = Array.isArray(documentBundle.entry) ? documentBundle.entry : [];
    const byUrl = new Map(entries.map((e) => [e.fullUrl, e.resource || {}]));
    const composition = entries.length && entries[0].resource && entries[0].resource.resourceType === "Composition" ? entries[0].resource : null;
    const patient = entries.map((e) => e.resource || {}).find((r) => r.resourceType === "Patient");
    const name = patient && Array.isArray(patient.name) && patient.name[0] ? patient.name[0].text : null;
    const observations = entries.map((e) => e.resource || {}).filter((r) => r.resourceType === "Observation");
    // The days the document covers: Composition.event.period, else the days its observations fall on.
    const period = composition && Array.isArray(composition.event) && composition.event[0] && composition.event[0].period;
    const recorded = observations.map(dateOf).filter(Boolean).sort();
    const dates = period && isDay(period.start) && isDay(period.end) && period.start.slice(0, 10) <= period.end.slice(0, 10)
      ? [period.start.slice(0, 10), period.end.slice(0, 10)] : recorded;

    const nodes = [el("h1", {}, (composition && composition.title) || link.label || "Shared health data")];
    const facts = el("dl", { class: "facts" });
    function fact(term, value) { if (value) facts.append(el("dt", {}, term), el("dd", {}, value)); }
    fact("For", name);
    fact("Days", dates.length ? dates[0] + " to " + dates[dates.length - 1] : null);
    fact("Shared", composition && composition.date ? composition.date.slice(0, 10) : null);
    fact("Link expires", typeof link.exp === "number" ? new Date(link.exp * 1000).toLocaleString() : null);
    nodes.push(facts);

    const downloads = el("div", { class: "downloads" });
    texts.forEach((text, index) => {
      const button = el("button", { type: "button", class: index ? "plain" : "" },
        texts.length === 1 ? "Download the FHIR bundle (JSON)" : index === 0 ? "Download the FHIR document (JSON)" : "Download readings, file " + index + " (JSON)");
      button.addEventListener("click", () => download(text, index === 0 ? "shared-health-data.fhir.json" : "shared-readings-" + index + ".fhir.json"));
      downloads.append(button);
    });
    const printButton = el("button", { type: "button", class: "plain" }, "Print");
    printButton.addEventListener("click", () => window.print());
    downloads.append(printButton);
    nodes.push(downloads);

    const sections = composition && Array.isArray(composition.section) ? composition.section : [];
    if (!sections.length) nodes.push(el("p", { class: "muted" }, "The bundle holds no summary sections."));
    // The summary goes on the page first; each section's chart or table follows a frame later, so
    // the words a person reads first never wait on drawing a dozen charts.
    const span = dates.length ? { first: dayNumber(dates[0]), last: dayNumber(dates[dates.length - 1]) } : null;
    const drawings = [];
    for (const section of sections) {
      const members = (section.entry || []).map((ref) => byUrl.get(ref.reference)).filter(Boolean);
      const box = el("section", { class: "section" }, el("h2", {}, section.title || "Section"));
      for (const line of paragraphs(section.text && section.text.div)) box.append(el("p", {}, line));
      const sectionCode = code(section.code, LOINC);
      if (members.length) {
        drawings.push(() => box.append(sectionCode === "85354-9" ? bloodPressureChart(members, span)
          : sectionCode === "73985-4" ? workoutTable(members) : metricChart(members, section.title || "", span)));
      }
      nodes.push(box);
    }
    const readings = bundles.filter((b) => b !== documentBundle)
      .reduce((sum, b) => sum + (Array.isArray(b.entry) ? b.entry.filter((e) => e.resource && e.resource.resourceType === "Observation").length : 0), 0);
    if (readings) {
      nodes.push(el("h2", {}, "Every reading"),
        el("p", {}, readings.toLocaleString() + " readings are in " + (bundles.length - 1) + " more file" + (bundles.length === 2 ? "" : "s")
          + ", to download above."));
    }
    nodes.push(el("p", { class: "muted small" }, "These are the figures the person's own devices recorded (Apple Health), summarised per local day. "
      + "The server that keeps this link stores only encrypted files; they were decrypted here, in this browser."));
    main.replaceChildren(...nodes);
    const drawNext = () => {
      const started = performance.now();
      while (drawings.length && performance.now() - started < 30) drawings.shift()();
      if (drawings.length) requestAnimationFrame(drawNext); else document.body.dataset.charts = "drawn";
    };
    requestAnimationFrame(drawNext);
  }

  // The narrative's paragraphs as plain text: the XHTML is parsed as XML and only its text is used.
  function paragraphs(div) {
    if (typeof div !== "string") return [];
    const parsed = new DOMParser().parseFromString(div, "application/xml");
    if (parsed.getElementsByTagName("parsererror").length) return [];
    return Array.from(parsed.getElementsByTagNameNS("http://www.w3.org/1999/xhtml", "p")).map((p) => p.textContent.trim()).filter(Boolean);
  }

  function download(text, name) {
    const url = URL.createObjectURL(new Blob([text], { type: "application/fhir+json" }));
    const anchor = el("a", { href: url, download: name });
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  // ---- Charts: a bar per day for a total, a band from lowest to highest with the mean for readings ----

  function metricChart(members, title, span) {
    const points = members.map((r) => {
      const date = dateOf(r);
      const value = r.valueQuantity ? r.valueQuantity.value : undefined;
      if (!date || typeof value !== "number") return null;
      const low = component(r, (c) => { const k = code(c, DAILY); return k && k.endsWith(".min"); });
      const high = component(r, (c) => { const k = code(c, DAILY); return k && k.endsWith(".max"); });
      return { x: dayNumber(date), date: date, value: value, low: low, high: high, unit: r.valueQuantity.unit || "" };
    }).filter(Boolean);
    const isTotal = points.every((p) => p.low === undefined && p.high === undefined);
    return chart(title, [{ points: points, bars: isTotal, className: "" }], span);
  }

  function bloodPressureChart(members, span) {
    const series = [["8480-6", "bloodPressureSystolic", ""], ["8462-4", "bloodPressureDiastolic", "2"]].map(([loinc, metric, suffix]) => ({
      className: suffix,
      name: suffix ? "diastolic" : "systolic",
      points: members.map((r) => {
        const date = dateOf(r);
        const value = component(r, (c) => code(c, LOINC) === loinc);
        if (!date || typeof value !== "number") return null;
        return { x: dayNumber(date), date: date, value: value, unit: "mmHg",
                 low: component(r, (c) => code(c, DAILY) === metric + ".min"), high: component(r, (c) => code(c, DAILY) === metric + ".max") };
      }).filter(Boolean),
    }));
    return chart("Blood pressure", series, span);
  }

  function chart(title, series, span) {
    const all = series.flatMap((s) => s.points);
    const box = el("figure", { class: "chart" });
    if (!all.length) { box.append(el("p", { class: "muted" }, "No data in these days.")); return box; }
    const width = 800, height = 240, left = 52, right = 12, top = 10, bottom = 26;
    // Every chart of a bundle spans the same days, so they line up one under another.
    const first = span ? span.first : Math.min(...all.map((p) => p.x)), last = span ? span.last : Math.max(...all.map((p) => p.x));
    const days = last - first + 1;
    const bars = series.some((s) => s.bars);
    let low = Math.min(...all.map((p) => Math.min(p.value, p.low === undefined ? p.value : p.low)));
    let high = Math.max(...all.map((p) => Math.max(p.value, p.high === undefined ? p.value : p.high)));
    if (bars) low = Math.min(0, low);
    const scale = niceScale(low, high);
    const plotWidth = width - left - right, plotHeight = height - top - bottom;
    const x = (day) => left + ((day - first + 0.5) / days) * plotWidth;
    const y = (value) => top + plotHeight - ((value - scale.low) / (scale.high - scale.low)) * plotHeight;
    const svg = shape("svg", { viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": title + ", " + dateText(first) + " to " + dateText(last), tabindex: "0" });
    const grid = shape("g", { class: "grid" });
    for (let tick = scale.low; tick <= scale.high + scale.step / 2; tick += scale.step) {
      grid.append(shape("line", { x1: left, x2: width - right, y1: y(tick), y2: y(tick) }));
      const label = shape("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end" });
      label.textContent = formatNumber(Number(tick.toFixed(10)));
      grid.append(label);
    }
    svg.append(grid);
    // Month (or week) labels along the bottom.
    for (let day = first; day <= last; day++) {
      const date = dateText(day);
      const monthStart = date.endsWith("-01");
      const weekly = days <= 45 && new Date(day * 86400000).getUTCDay() === 1;
      if ((days > 45 && monthStart) || weekly) {
        const label = shape("text", { x: x(day), y: height - 8, "text-anchor": "middle" });
        label.textContent = weekly ? date.slice(5) : new Date(day * 86400000).toLocaleDateString(undefined, { month: "short", year: "2-digit", timeZone: "UTC" });
        svg.append(label);
      }
    }
    const barWidth = Math.max(1, (plotWidth / days) * 0.8);
    for (const s of series) {
      const suffix = s.className || "";
      if (s.bars) {
        for (const p of s.points) {
          svg.append(shape("rect", { class: "bar", x: x(p.x) - barWidth / 2, y: Math.min(y(p.value), y(0)), width: barWidth, height: Math.abs(y(0) - y(p.value)) }));
        }
        continue;
      }
      for (const p of s.points) {
        if (p.low !== undefined && p.high !== undefined) {
          svg.append(shape("rect", { class: "band" + suffix, x: x(p.x) - barWidth / 2, y: y(p.high), width: barWidth, height: Math.max(1, y(p.low) - y(p.high)) }));
        }
      }
      let path = "";
      let previous = null;
      for (const p of s.points) {
        path += (previous !== null && p.x - previous <= 1 ? "L" : "M") + x(p.x).toFixed(1) + " " + y(p.value).toFixed(1);
        previous = p.x;
      }
      svg.append(shape("path", { class: "mean" + suffix, d: path }));
      if (s.points.length < 60) for (const p of s.points) svg.append(shape("circle", { class: "dot" + suffix, cx: x(p.x), cy: y(p.value), r: 2.5 }));
    }
    const cursor = shape("line", { class: "cursor", x1: -10, x2: -10, y1: top, y2: top + plotHeight });
    svg.append(cursor);
    const readout = el("p", { class: "readout", "aria-live": "polite" }, "Point at the chart, or focus it and use the arrow keys, to read a day.");
    let shown = last;
    function show(day) {
      shown = Math.max(first, Math.min(last, day));
      cursor.setAttribute("x1", x(shown));
      cursor.setAttribute("x2", x(shown));
      const parts = series.map((s) => {
        const p = s.points.find((q) => q.x === shown);
        if (!p) return null;
        let text = (series.length > 1 ? s.name + " " : "") + formatNumber(p.value) + " " + p.unit;
        if (p.low !== undefined && p.high !== undefined) text += " (lowest " + formatNumber(p.low) + ", highest " + formatNumber(p.high) + ")";
        return text;
      }).filter(Boolean);
      readout.textContent = dateText(shown) + ": " + (parts.length ? parts.join("; ") : "nothing recorded");
    }
    svg.addEventListener("pointermove", (event) => {
      const box = svg.getBoundingClientRect();
      const inside = ((event.clientX - box.left) / box.width) * width;
      show(Math.floor(first + ((inside - left) / plotWidth) * days));
    });
    svg.addEventListener("keydown", (event) => {
      if (event.key === "ArrowLeft") { show(shown - 1); event.preventDefault(); }
      if (event.key === "ArrowRight") { show(shown + 1); event.preventDefault(); }
    });
    box.append(svg);
    if (series.length > 1) {
      box.append(el("p", { class: "legend" }, ...series.map((s, i) => [el("span", { class: "key key-" + (i + 1) }), s.name])));
    }
    box.append(readout);
    return box;
  }

  // Round ticks: steps of 1, 2 or 5 × 10ⁿ, about five of them.
  function niceScale(low, high) {
    if (!(high > low)) { high = low + 1; low = low - 1; }
    const rough = (high - low) / 5;
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
    return { low: Math.floor(low / step) * step, high: Math.ceil(high / step) * step, step: step };
  }

  function workoutTable(members) {
    const rows = members.map((r) => {
      const date = dateOf(r);
      const activity = (r.valueCodeableConcept && r.valueCodeableConcept.text) || "Workout";
      const figure = (column) => component(r, (c) => code(c, WORKOUT) === column);
      return el("tr", {},
        el("td", {}, date || ""), el("td", {}, activity),
        el("td", { class: "num" }, figure("minutes") === undefined ? "" : formatNumber(figure("minutes"))),
        el("td", { class: "num" }, figure("distanceMeters") === undefined ? "" : formatNumber(figure("distanceMeters") / 1000)),
        el("td", { class: "num" }, figure("activeEnergyKcal") === undefined ? "" : formatNumber(figure("activeEnergyKcal"))),
        el("td", { class: "num" }, figure("averageHeartRate") === undefined ? "" : formatNumber(figure("averageHeartRate"))));
    });
    return el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, el("th", {}, "Day"), el("th", {}, "Activity"), el("th", { class: "num" }, "min"),
        el("th", { class: "num" }, "km"), el("th", { class: "num" }, "kcal"), el("th", { class: "num" }, "avg bpm"))),
      el("tbody", {}, rows)));
  }

  window.addEventListener("hashchange", () => location.reload());
  start().catch((error) => fail("The link could not be opened: " + (error && error.message ? error.message : error)));
})();
