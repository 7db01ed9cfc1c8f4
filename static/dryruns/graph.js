// The dry-run page's figures (preemption graph, cascade), built by the server (dashboard/dryruns/graphs.py).
(function () {
  "use strict";
  if (!window.Plotly) return;
  [["preemption-figure", "preemption-graph"], ["cascade-figure", "cascade-graph"]].forEach(([dataId, elId]) => {
    const data = document.getElementById(dataId);
    const el = document.getElementById(elId);
    if (!data || !el) return;
    const fig = JSON.parse(data.textContent);
    window.Plotly.newPlot(el, fig.data, fig.layout, { displaylogo: false, responsive: true }).then(() => {
      el.dataset.rendered = "1";
    });
  });
})();
