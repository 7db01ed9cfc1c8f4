// Overview: numbers and the allocation chart follow the mirror live.
// Any pods/nodes/events delta → (debounced) GET overview.json (~1 KB) → update in place.
(function () {
  "use strict";
  const live = window.Schedlab.live;
  const { cluster, json: jsonUrl, pendingUrl } = document.currentScript.dataset;
  const chartEl = document.getElementById("alloc-chart");

  function pct(x) { return x === null || x === undefined ? 0 : Math.round(x * 1000) / 10; }

  function drawChart(data) {
    if (!window.Plotly || !chartEl) return;
    const a = data.allocation;
    const labels = ["CPU", "Memory", "GPU"];
    const used = [pct(a.cpu.share), pct(a.memory.share), pct(a.gpu.share)];
    Plotly.react(chartEl, [
      { type: "bar", orientation: "h", y: labels, x: used, name: "requested %", marker: { color: "#0a58ca" },
        text: used.map((v) => `${v}%`), textposition: "auto" },
      { type: "bar", orientation: "h", y: labels, x: used.map((v) => Math.max(0, 100 - v)), name: "free %",
        marker: { color: "#d0d7de" }, hoverinfo: "skip" },
    ], { barmode: "stack", height: 220, margin: { l: 70, r: 10, t: 10, b: 30 }, xaxis: { range: [0, 100], title: "% of allocatable" },
         showlegend: false }, { displayModeBar: false, responsive: true });
  }

  function setText(sel, value) {
    for (const el of document.querySelectorAll(sel)) el.textContent = value === null || value === undefined ? "—" : String(value);
  }

  function apply(data) {
    for (const key of ["nodes", "nodesReady", "nodesUnschedulable", "gpuNodes", "pods", "podsRunning", "podsPending", "gpusPending"]) {
      setText(`[data-stat="${key}"]`, data[key]);
    }
    const fmt = { cpu: (v) => +(v / 1000).toFixed(3), memory: (v) => (v / 2 ** 30).toFixed(1), gpu: (v) => v };
    for (const res of ["cpu", "memory", "gpu"]) {
      const a = data.allocation[res];
      setText(`[data-alloc="${res}.requested"]`, fmt[res](a.requested));
      setText(`[data-alloc="${res}.allocatable"]`, fmt[res](a.allocatable));
      setText(`[data-alloc="${res}.share"]`, a.share === null ? "—" : `${Math.round(a.share * 100)}%`);
    }
    if (data.reasons) {
      const body = document.querySelector("#reasons tbody");
      body.replaceChildren(...(data.reasons.length ? data.reasons.map((r) => {
        const tr = document.createElement("tr");
        const a = document.createElement("a");
        a.href = `${pendingUrl}?reason=${encodeURIComponent(r.reason)}`;
        a.textContent = r.reason;
        const cells = [a, r.pods, r.nodes].map((v, i) => {
          const td = document.createElement("td");
          if (i) { td.className = "num"; td.textContent = String(v); } else td.appendChild(v);
          return td;
        });
        tr.append(...cells);
        return tr;
      }) : [(() => { const tr = document.createElement("tr"); tr.innerHTML = '<td colspan="3">No reasons recorded.</td>'; return tr; })()]));
    }
    if (data.health) live.applyHealth(data.health);
    drawChart(data);
  }

  const refresh = live.debounce(() => live.fetchJSON(jsonUrl).then(apply).catch(() => {}), 500);
  drawChart(JSON.parse(document.getElementById("overview-data").textContent));
  live.cluster(cluster, {
    kinds: [],  // everything: counts depend on nodes, pods and events
    onDelta() { refresh(); return true; },
    onCatchUp: refresh,
  });
})();
