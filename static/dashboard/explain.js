// Pod explanation: load the engine's breakdown as a fragment, then what would make
// the pod fit (a second fragment), draw the stacked score chart, and re-ask the
// engine when this pod, or the nodes, change.
(function () {
  "use strict";
  const live = window.Schedlab.live;
  const { cluster, pod: podKey } = document.currentScript.dataset;
  const box = document.getElementById("explanation");

  function draw() {
    box.setAttribute("aria-busy", "false");
    const data = document.getElementById("score-data");
    const el = document.getElementById("score-chart");
    if (!data || !el || !window.Plotly) return;
    const chart = JSON.parse(data.textContent);
    const traces = chart.traces.map((t) => ({ type: "bar", orientation: "h", name: t.name, y: chart.nodes, x: t.x }));
    Plotly.react(el, traces, {
      barmode: "stack", height: Math.max(220, 26 * chart.nodes.length + 80),
      margin: { l: 140, r: 10, t: 10, b: 40 }, yaxis: { autorange: "reversed" },
      xaxis: { title: "weighted score" }, legend: { orientation: "h", y: -0.15 },
    }, { displayModeBar: false, responsive: true });
  }

  // What would make it fit comes in a second request, once the verdict is shown.
  function loadFit(event) {
    const fit = document.getElementById("fit");
    if (event.target !== box || !fit) return;
    live.refreshFragment(fit)
      .then(() => fit.setAttribute("aria-busy", "false"))
      .catch(() => { fit.textContent = "The engine could not work out what would make it fit."; });
  }

  box.addEventListener("schedlab:fragment", draw);
  box.addEventListener("schedlab:fragment", loadFit);
  const reload = live.debounce(() => { box.setAttribute("aria-busy", "true"); live.refreshFragment(box).catch(() => {}); }, 1500);
  live.refreshFragment(box).catch(() => { box.textContent = "The engine could not explain this pod."; });
  live.cluster(cluster, {
    kinds: ["pods", "nodes"],
    onDelta(msg) {
      // Re-explain when this pod changed or nodes changed; other pods' churn is ignored.
      if (msg.kind === "nodes") { reload(); return true; }
      const touched = [...(msg.upserted || []), ...(msg.deleted || [])].some((p) => live.podKey(p) === podKey);
      if (touched) reload();
      return true;
    },
  });
})();
