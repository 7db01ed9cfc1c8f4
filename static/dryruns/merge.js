// The version diff in CodeMirror's side-by-side merge view (the <pre> diff stays for no-JS).
(function () {
  "use strict";
  const box = document.getElementById("merge");
  if (!box || !window.SchedlabEditor) return;
  const text = (id) => JSON.parse(document.getElementById(id).textContent);
  window.SchedlabEditor.merge(box, text("doc-a"), text("doc-b"));
})();
