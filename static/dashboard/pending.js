// Pending pods: rows leave as pods get scheduled, messages update as events arrive,
// new pending pods appear (appended on the last page when they match the filters).
(function () {
  "use strict";
  const live = window.Schedlab.live;
  // podUrl: the pod page's URL, reversed by the server for placeholder names (never valid in Kubernetes)
  const { cluster, podUrl } = document.currentScript.dataset;
  const container = document.getElementById("pending-rows");
  const refetch = live.debounce(() => live.refreshFragment(container).catch(() => {}), 400);

  function table() { return document.getElementById("pending"); }
  function filters() { try { return JSON.parse(table().dataset.filters || "{}"); } catch (_) { return {}; } }
  function rowFor(key) { return table().querySelector(`tbody tr[data-key="${CSS.escape(key)}"]`); }

  function matches(p, f) {
    if (f.namespace && p.namespace !== f.namespace) return false;
    if (f.priority !== undefined && String(p.priority) !== String(f.priority)) return false;
    if (f.gpu === "none" && p.gpu_requested !== 0) return false;
    if (f.gpu === "any" && !(p.gpu_requested > 0)) return false;
    if (f.gpu && /^\d+$/.test(f.gpu) && p.gpu_requested !== Number(f.gpu)) return false;
    return !f.reason; // a reason filter needs the message: let the server decide
  }

  function setTotal(delta) {
    const el = document.getElementById("pending-total");
    if (!el) return;
    const n = Math.max(0, Number(el.dataset.total) + delta);
    el.dataset.total = String(n);
    el.textContent = String(n);
  }

  function addRow(p) {
    const body = table().querySelector("tbody");
    const empty = body.querySelector("tr.empty");
    if (empty) empty.remove();
    const tr = document.createElement("tr");
    tr.dataset.key = live.podKey(p);
    tr.className = "flash";
    const a = document.createElement("a");
    a.href = podUrl
      .replace("__namespace__", encodeURIComponent(p.namespace))
      .replace("__pod__", encodeURIComponent(p.name));
    a.textContent = live.podKey(p);
    const cells = [a, p.priority ?? "", p.gpu_requested, "", "just now", "no FailedScheduling event yet"];
    cells.forEach((v, i) => {
      const td = document.createElement("td");
      if (i === 0) td.appendChild(v); else td.textContent = String(v);
      if (i >= 1 && i <= 3) td.className = "num";
      if (i === 2) td.dataset.field = "gpu_requested";
      if (i === 5) { td.className = "message-text"; td.dataset.field = "message"; }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }

  function onPods(msg) {
    const f = filters();
    const t = table();
    const lastPage = Number(t.dataset.page) >= Number(t.dataset.pages);
    let needsRefetch = false;
    for (const d of msg.deleted || []) {
      const row = rowFor(live.podKey(d));
      if (row) { row.remove(); setTotal(-1); needsRefetch = true; }
    }
    for (const p of msg.upserted || []) {
      const waiting = p.phase === "Pending" && !p.node_name;
      const row = rowFor(live.podKey(p));
      if (!waiting) {
        if (row) { row.remove(); setTotal(-1); needsRefetch = true; }
        continue;
      }
      if (row) {
        row.querySelector('[data-field="gpu_requested"]').textContent = String(p.gpu_requested);
        continue;
      }
      if (f.reason) { needsRefetch = true; continue; }
      if (!matches(p, f)) continue;
      setTotal(+1);
      const body = t.querySelector("tbody");
      if (lastPage && body.querySelectorAll("tr[data-key]").length < 50) addRow(p);
      else document.getElementById("pending-new").hidden = false;
    }
    // A row left this page: pull the next one in from the server, quietly.
    if (needsRefetch && !lastPage) refetch();
    return true;
  }

  function onEvents(msg) {
    for (const e of msg.upserted || []) {
      if (e.reason !== "FailedScheduling") continue;
      const row = rowFor(`${e.involved_namespace}/${e.involved_name}`);
      if (row) row.querySelector('[data-field="message"]').textContent = e.message;
    }
    if (filters().reason) refetch();
    return true;
  }

  live.cluster(cluster, {
    kinds: ["pods", "events"],
    onDelta(msg) {
      if (msg.kind === "pods") return onPods(msg);
      if (msg.kind === "events") return onEvents(msg);
      return false;
    },
  });
})();
