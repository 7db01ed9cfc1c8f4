// GPU pages (fleet, node topology): follow the cluster's claims, slices, pods, nodes and
// topologies; each change re-fetches the page's fragment (debounced by live.js).
(function () {
  "use strict";
  const script = document.getElementById("gpus-script");
  window.Schedlab.live.cluster(script.dataset.cluster, {
    kinds: script.dataset.kinds.split(","),
    onDelta() { return false; },
  });
})();
