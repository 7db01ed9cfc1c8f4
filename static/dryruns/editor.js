// The profile editor: a textarea with line numbers, validation as you type
// (debounced POST /api/v1/profiles/validate/, each error with its field path
// and, where the path can be found in the YAML, its line), and the form of
// common knobs kept in sync with the YAML through the server (profile-form).
(function () {
  "use strict";
  const area = document.getElementById("document");
  if (!area) return;
  // CodeMirror 6 (static/build/editor.js, built by `make install`) replaces the
  // textarea where it is there; without it the textarea and its gutter remain.
  if (window.SchedlabEditor) {
    try { window.SchedlabEditor.attach(area, { schemaUrl: area.dataset.schemaUrl }); } catch (e) { console.warn(e); }
  }
  const gutter = document.getElementById("gutter");
  const panel = document.getElementById("validation");
  const root = document.getElementById("knobs-root");
  const original = area.value;
  const tokenInput = document.querySelector("input[name=csrfmiddlewaretoken]");
  const csrf = tokenInput ? tokenInput.value : "";
  const strategies = JSON.parse(document.getElementById("strategies-data").textContent);
  let knobs = JSON.parse(document.getElementById("knobs-data").textContent);
  let seq = 0; // only the newest answer is shown

  function debounce(fn, ms) {
    let t = null;
    return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
  }

  async function post(url, body) {
    const resp = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
      body: JSON.stringify(body),
    });
    let data = {};
    try { data = await resp.json(); } catch (_) { /* empty */ }
    return { ok: resp.ok, status: resp.status, data };
  }

  // --- line numbers -----------------------------------------------------------------
  let badLines = new Set();
  function renderGutter() {
    const n = area.value.split("\n").length;
    let out = "";
    for (let i = 1; i <= n; i++) out += badLines.has(i) ? `<span class="bad">${i}</span>\n` : `${i}\n`;
    gutter.innerHTML = out;
    gutter.scrollTop = area.scrollTop;
  }
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });

  // --- field path → line (block-style YAML, as kubectl and this editor write it) ----
  function tokens(path) {
    const out = [];
    const re = /([^.[\]]+)|\[(\d+)\]/g;
    let m;
    while ((m = re.exec(path))) out.push(m[2] !== undefined ? Number(m[2]) : m[1]);
    if (out[0] === "document") out.shift();
    return out;
  }
  function info(line) {
    const m = /^(\s*)(-\s+)?(?:"?([^":#][^":]*?)"?\s*:(?:\s|$))?/.exec(line);
    const indent = m[1].length;
    const dash = m[2] ? indent : -1;
    const keyCol = m[3] !== undefined ? indent + (m[2] ? m[2].length : 0) : -1;
    return { indent, dash, key: m[3], keyCol, blank: /^\s*(#.*)?$/.test(line) };
  }
  function lineOf(text, path) {
    const lines = text.split("\n").map(info);
    let start = 0, end = lines.length, found = -1;
    for (const tok of tokens(path)) {
      if (typeof tok === "number") {
        let col = Infinity;
        for (let i = start; i < end; i++) if (!lines[i].blank && lines[i].dash >= 0) col = Math.min(col, lines[i].dash);
        let n = -1, at = -1;
        for (let i = start; i < end; i++) {
          if (lines[i].dash === col && ++n === tok) { at = i; break; }
        }
        if (at < 0) break;
        let stop = at + 1;
        while (stop < end && (lines[stop].blank || (lines[stop].indent > col))) stop++;
        start = at; end = stop; found = at;
      } else {
        let col = Infinity;
        for (let i = start; i < end; i++) if (!lines[i].blank && lines[i].keyCol >= 0) col = Math.min(col, lines[i].keyCol);
        let at = -1;
        for (let i = start; i < end; i++) if (lines[i].keyCol === col && lines[i].key === tok) { at = i; break; }
        if (at < 0) break;
        let stop = at + 1;
        while (stop < end && (lines[stop].blank || lines[stop].indent > col || (lines[stop].indent === col && lines[stop].dash === col))) stop++;
        start = at + 1; end = stop; found = at;
      }
    }
    return found >= 0 ? found + 1 : null;
  }

  function goToLine(n) {
    const lines = area.value.split("\n");
    let pos = 0;
    for (let i = 0; i < n - 1; i++) pos += lines[i].length + 1;
    area.focus();
    area.setSelectionRange(pos, pos + (lines[n - 1] || "").length);
    const lh = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (n - 5) * lh);
  }

  // a YAML syntax error names its place in the message: "not valid YAML (line 6, column 1): ..."
  function syntaxLine(message) {
    const m = /\(line (\d+), column \d+\)/.exec(message || "");
    if (!m) return 0;
    return Math.min(Number(m[1]), area.value.split("\n").length);
  }

  function showProblems(errors) {
    badLines = new Set();
    panel.replaceChildren();
    const p = document.createElement("p");
    const ul = document.createElement("ul");
    ul.id = "problems";
    if (!errors.length) {
      p.className = "valid";
      p.textContent = "Valid.";
    } else {
      p.className = "invalid";
      p.textContent = `${errors.length} problem${errors.length > 1 ? "s" : ""}:`;
      for (const e of errors) {
        const li = document.createElement("li");
        li.className = "problem";
        const line = lineOf(area.value, e.field) || syntaxLine(e.message);
        const code = document.createElement("code");
        code.className = "field";
        code.textContent = e.field;
        const msg = document.createElement("span");
        msg.className = "msg";
        msg.textContent = ` ${e.message}`;
        li.append(code, msg);
        if (line) {
          badLines.add(line);
          const b = document.createElement("button");
          b.type = "button";
          b.className = "link line";
          b.textContent = `line ${line}`;
          b.addEventListener("click", () => goToLine(line));
          li.append(" ", b);
        }
        ul.append(li);
      }
    }
    panel.append(p, ul);
    renderGutter();
    // the CodeMirror editor (when its bundle is built) marks the same lines inline
    area.dispatchEvent(new CustomEvent("schedlab:problems", {
      detail: errors.map((e) => ({ field: e.field, message: e.message, line: lineOf(area.value, e.field) || syntaxLine(e.message) })),
    }));
  }

  // what a dry-run of the document leaves out (extenders), under the problems
  function showWarnings(lines) {
    const ul = document.getElementById("warnings");
    if (!ul) return;
    ul.replaceChildren(...lines.map((w) => {
      const li = document.createElement("li");
      li.className = "warning";
      li.textContent = w;
      return li;
    }));
  }

  // --- validation as you type ---------------------------------------------------------
  const validate = debounce(async () => {
    const mine = ++seq;
    panel.dataset.state = "checking";
    const r = await post(area.dataset.validateUrl, { document: area.value });
    if (mine !== seq) return;
    if (!r.ok) {
      const errs = Object.entries(r.data || {}).flatMap(([f, ms]) => [].concat(ms).map((m) => ({ field: f, message: String(m) })));
      showProblems(errs.length ? errs : [{ field: "document", message: `validation failed (${r.status})` }]);
      panel.dataset.state = "invalid";
      return;
    }
    showProblems(r.data.errors || []);
    showWarnings(r.data.warnings || []);
    panel.dataset.state = r.data.valid ? "valid" : "invalid";
    if (r.data.valid) refreshKnobs();
  }, 350);

  function markDirty() {
    const dirty = area.value !== original;
    const note = document.getElementById("dirty");
    if (note) note.hidden = !dirty;
    for (const b of document.querySelectorAll("form.guarded button")) {
      if (dirty) { b.dataset.wasDisabled = b.disabled ? "1" : ""; b.disabled = true; }
      else if (b.dataset.wasDisabled !== undefined) { b.disabled = b.dataset.wasDisabled === "1"; }
    }
  }

  // any edit makes answers to earlier requests stale (seq), before the debounce fires
  area.addEventListener("input", () => { seq++; renderGutter(); markDirty(); validate(); });

  // --- the knobs form -----------------------------------------------------------------
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "dataset") Object.assign(e.dataset, v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    e.append(...kids);
    return e;
  }
  function shape(k) {
    return JSON.stringify(k && k.profiles.map((p) => [p.schedulerName, Object.entries(p.points).map(([pt, rows]) => [pt, rows.map((r) => r.name)])]));
  }

  function build() {
    root.replaceChildren();
    if (!knobs) {
      root.append(el("p", { class: "muted" }, "Fix the YAML's problems to use the form."));
      return;
    }
    root.append(el("p", {},
      el("label", { for: "k-pct" }, "percentageOfNodesToScore "),
      el("input", { id: "k-pct", type: "number", min: 0, max: 100, placeholder: "adaptive", dataset: { knob: "pct" } })));
    knobs.profiles.forEach((p, i) => {
      const fs = el("fieldset", { class: "profile-knobs" }, el("legend", {}, `Profile ${p.schedulerName}`));
      fs.append(el("p", {},
        el("label", { for: `k-${i}-pct` }, "percentageOfNodesToScore (this profile) "),
        el("input", { id: `k-${i}-pct`, type: "number", min: 0, max: 100, placeholder: "inherit", dataset: { knob: "ppct", profile: i } }),
        " ",
        el("label", { for: `k-${i}-strategy` }, "NodeResourcesFit scoring strategy "),
        el("select", { id: `k-${i}-strategy`, dataset: { knob: "strategy", profile: i } },
          ...strategies.map((s) => el("option", { value: s }, s)))));
      const grid = el("div", { class: "points" });
      for (const [point, rows] of Object.entries(p.points)) {
        const pfs = el("fieldset", { class: "point" }, el("legend", {}, point));
        for (const r of rows) {
          const id = `k-${i}-${point}-${r.name}`;
          const row = el("div", { class: "plugin-row" },
            el("input", { id, type: "checkbox", dataset: { knob: "on", profile: i, point, plugin: r.name } }),
            el("label", { for: id }, ` ${r.name}`));
          if (point === "score") {
            row.append(" ", el("label", { for: `${id}-w`, class: "visually-hidden" }, `${r.name} weight`),
              el("input", { id: `${id}-w`, type: "number", min: 1, max: 100, class: "weight", dataset: { knob: "weight", profile: i, point, plugin: r.name } }));
          }
          pfs.append(row);
        }
        grid.append(pfs);
      }
      fs.append(grid);
      root.append(fs);
    });
    fill();
  }

  function fill() {
    for (const input of root.querySelectorAll("[data-knob]")) {
      const d = input.dataset;
      const p = d.profile !== undefined ? knobs.profiles[Number(d.profile)] : null;
      if (d.knob === "pct") input.value = knobs.percentageOfNodesToScore ?? "";
      else if (d.knob === "ppct") input.value = p.percentageOfNodesToScore ?? "";
      else if (d.knob === "strategy") input.value = p.scoringStrategy;
      else {
        const r = p.points[d.point].find((x) => x.name === d.plugin);
        if (d.knob === "on") input.checked = r.enabled;
        else { input.value = r.weight ?? ""; input.disabled = !r.enabled; }
      }
    }
  }

  function collect() {
    const out = JSON.parse(JSON.stringify(knobs));
    for (const input of root.querySelectorAll("[data-knob]")) {
      const d = input.dataset;
      const p = d.profile !== undefined ? out.profiles[Number(d.profile)] : null;
      const num = input.value === "" ? null : Number(input.value);
      if (d.knob === "pct") out.percentageOfNodesToScore = num;
      else if (d.knob === "ppct") p.percentageOfNodesToScore = num;
      else if (d.knob === "strategy") p.scoringStrategy = input.value;
      else {
        const r = p.points[d.point].find((x) => x.name === d.plugin);
        if (d.knob === "on") r.enabled = input.checked;
        else r.weight = num;
      }
    }
    return out;
  }

  function accept(next) {
    const rebuild = shape(next) !== shape(knobs);
    knobs = next;
    if (rebuild || !root.querySelector("[data-knob]")) {
      const focused = document.activeElement && document.activeElement.id;
      build();
      if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
    } else {
      fill();
    }
  }

  async function refreshKnobs() {
    const mine = seq;
    const r = await post(area.dataset.formUrl, { document: area.value });
    if (mine !== seq) return;
    if (r.ok) accept(r.data.knobs);
  }

  const applyKnobs = debounce(async () => {
    if (!knobs) return;
    const mine = ++seq;
    root.dataset.state = "saving";
    const r = await post(area.dataset.formUrl, { document: area.value, knobs: collect() });
    if (mine !== seq) return;
    root.dataset.state = "";
    if (!r.ok) { showProblems(r.data.errors || []); return; }
    if (r.data.changed) {
      area.value = r.data.document;
      area.dispatchEvent(new Event("schedlab:replaced"));
      renderGutter();
      markDirty();
    }
    showProblems([]);
    accept(r.data.knobs);
  }, 250);

  root.addEventListener("change", () => { seq++; applyKnobs(); });

  renderGutter();
  build();
  // problems the server found when saving: give them their lines too
  const initial = [...panel.querySelectorAll(".problem")].map((li) => ({
    field: li.querySelector(".field").textContent,
    message: li.querySelector(".msg").textContent,
  }));
  if (initial.length) showProblems(initial);
})();
