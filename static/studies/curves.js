// A study's results drawn side by side: the median unallocated-GPU curve of every group,
// and throughput against quality (percentageOfNodesToScore studies) or the unallocated
// GPU % at 100% arrived per group.
(function () {
  "use strict";
  const data = document.getElementById("study-figure");
  if (!data || !window.Plotly) return;
  const fig = JSON.parse(data.textContent);
  const layout = (title, x, y) => ({
    title: { text: title, font: { size: 14 } },
    xaxis: { title: { text: x } },
    yaxis: { title: { text: y } },
    margin: { t: 40, r: 20, b: 50, l: 60 },
    legend: { orientation: "h", y: -0.25 },
  });
  const config = { responsive: true, displaylogo: false };
  Plotly.newPlot("study-curves", fig.groups.map((g) => ({
    x: g.arrived, y: g.unallocated, mode: "lines", name: g.label,
  })), layout("Unallocated GPU % against arrived workload", "arrived GPU requests, % of capacity", "unallocated GPU %"), config);
  if (fig.nodesToScore.length) {
    const traces = [];
    for (const s of fig.nodesToScore) {
      traces.push({ x: s.percentage, y: s.podsPerSecond, mode: "lines+markers", name: `${s.label}: pods/s` });
      traces.push({ x: s.percentage, y: s.unallocatedAt100, mode: "lines+markers", yaxis: "y2", line: { dash: "dot" }, name: `${s.label}: unallocated GPU %` });
    }
    const l = layout("Throughput and quality against percentageOfNodesToScore", "percentageOfNodesToScore", "pods/s (solid)");
    l.yaxis2 = { title: { text: "unallocated GPU % at 100% (dotted)" }, overlaying: "y", side: "right" };
    l.margin.r = 70;
    Plotly.newPlot("study-tradeoff", traces, l, config);
  } else {
    Plotly.newPlot("study-tradeoff", [{
      type: "bar", x: fig.groups.map((g) => g.label), y: fig.groups.map((g) => g.unallocatedAt100),
    }], layout("Unallocated GPU % at 100% arrived", "", "unallocated GPU %"), config);
  }
})();
