// The preemption graph: the figure is built by the server (dashboard/dryruns/graphs.py).
(function () {
  "use strict";
  const data = document.getElementById("preemption-figure");
  const el = document.getElementById("preemption-graph");
  if (!data || !el || !window.Plotly) return;
  const fig = JSON.parse(data.textContent);
  window.Plotly.newPlot(el, fig.data, fig.layout, { displaylogo: false, responsive: true }).then(() => {
    el.dataset.rendered = "1";
  });
})();
