// Nodes & GPUs: the heatmap and GPU figures follow the mirror (debounced
// gpu-topology.json), node rows are re-fetched for the visible page only.
(function () {
  "use strict";
  const live = window.Schedlab.live;
  const script = document.getElementById("nodes-script");
  const heat = document.getElementById("gpu-heatmap");

  function draw(h) {
    if (!window.Plotly || !heat) return;
    if (!h.y.length) { heat.textContent = "No GPU nodes."; heat.classList.remove("chart"); return; }
    Plotly.react(heat, [{
      type: "heatmap", z: h.z, y: h.y, text: h.text, colorscale: "Greens", zmin: 0,
      hovertemplate: "%{text}<br>%{y}<br>free GPUs: %{z}<extra></extra>", colorbar: { title: "free" },
    }], { height: Math.max(200, 40 * h.y.length + 80), margin: { l: 200, r: 10, t: 10, b: 30 },
          xaxis: { title: "nodes, most free first", showticklabels: false } }, { displayModeBar: false, responsive: true });
  }

  function apply(t) {
    for (const key of ["gpuNodes", "free", "largestFree", "stranded", "smallestPending"]) {
      for (const el of document.querySelectorAll(`[data-topo="${key}"]`)) el.textContent = t[key] ?? "—";
    }
    draw(t.heatmap);
  }

  const refresh = live.debounce(() => live.fetchJSON(script.dataset.json).then(apply).catch(() => {}), 800);
  draw(JSON.parse(document.getElementById("heatmap-data").textContent));
  live.cluster(script.dataset.cluster, {
    kinds: ["nodes", "pods"],
    onDelta(msg) {
      refresh();
      return false; // and re-fetch the visible node rows (debounced by live.js)
    },
    onCatchUp: refresh,
  });
})();
