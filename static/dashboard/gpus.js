// GPU pages (fleet, node topology): follow the cluster's claims, slices, pods, nodes and
// topologies; each change re-fetches the page's fragment (debounced by live.js).
(function () {
  "use strict";
  const { cluster, kinds } = document.currentScript.dataset;
  window.Schedlab.live.cluster(cluster, {
    kinds: kinds.split(","),
    onDelta() { return false; },
  });
})();
