// Nodes & GPUs: the heatmap and GPU figures load as gpu-topology.json right
// after the page (they read every GPU node, so the page itself does not) and
// follow the mirror (debounced); node rows are re-fetched for the visible page only.
(function () {
  "use strict";
  const live = window.Schedlab.live;
  const { cluster, json: jsonUrl } = document.currentScript.dataset;
  const heat = document.getElementById("gpu-heatmap");

  function draw(h) {
    if (!window.Plotly || !heat) return;
    if (!h.y.length) { heat.textContent = "No GPU nodes."; heat.classList.remove("chart"); return; }
    // light = no GPU free, dark green = many free: more free reads as more ink
    Plotly.react(heat, [{
      type: "heatmap", z: h.z, y: h.y, text: h.text, zmin: 0, xgap: 1, ygap: 1,
      colorscale: [[0, "#f7fcf5"], [0.5, "#74c476"], [1, "#00441b"]],
      hovertemplate: "%{text}<br>%{y}<br>free GPUs: %{z}<extra></extra>",
      colorbar: { title: { text: "free GPUs" }, thickness: 14 },
    }], { height: Math.max(220, 40 * h.y.length + 100), margin: { l: 160, r: 10, t: 10, b: 50 },
          xaxis: { title: { text: "nodes of the group, most free GPUs first (hover for names)" }, showticklabels: false },
          yaxis: { title: { text: "node pool / zone" }, automargin: true } },
      { displayModeBar: false, responsive: true });
  }

  function rows(id, items, empty, cells) {
    const body = document.querySelector(`#${id} tbody`);
    if (!body) return;
    body.replaceChildren();
    const width = document.querySelectorAll(`#${id} thead th`).length;
    if (!items.length) items = [null];
    for (const item of items) {
      const tr = document.createElement("tr");
      for (const [text, num] of item === null ? [[empty, false]] : cells(item)) {
        const td = document.createElement("td");
        td.textContent = text;
        if (num) td.className = "num";
        if (item === null) td.colSpan = width;
        tr.append(td);
      }
      body.append(tr);
    }
  }

  function apply(t) {
    for (const key of ["gpuNodes", "free", "largestFree", "stranded", "smallestPending"]) {
      for (const el of document.querySelectorAll(`[data-topo="${key}"]`)) el.textContent = t[key] ?? "—";
    }
    rows("gpu-sizes", t.bySize, "No pending GPU pods.",
      (s) => [[s.size, true], [s.pods, true], [s.nodes, true], [s.fits, true]]);
    rows("gpu-products", Object.entries(t.products), "No node carries GPU Feature Discovery labels.",
      ([name, n]) => [[name, false], [n, true]]);
    draw(t.heatmap);
    document.getElementById("gpu-section")?.setAttribute("aria-busy", "false");
  }

  const refresh = live.debounce(() => live.fetchJSON(jsonUrl).then(apply).catch(() => {}), 800);
  live.fetchJSON(jsonUrl).then(apply).catch(() => {
    heat.textContent = "The GPU figures could not be loaded; they retry on the next cluster change.";
  });
  live.cluster(cluster, {
    kinds: ["nodes", "pods"],
    onDelta(msg) {
      refresh();
      return false; // and re-fetch the visible node rows (debounced by live.js)
    },
    onCatchUp: refresh,
  });
})();
