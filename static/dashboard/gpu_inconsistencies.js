// Overview: the GPU inconsistencies read every GPU node, so they load right after
// the page; live.js re-fetches them when nodes, pods, claims or slices change.
(function () {
  "use strict";
  const el = document.getElementById("gpu-views");
  if (el) window.Schedlab.live.refreshFragment(el).catch(() => {});
})();
