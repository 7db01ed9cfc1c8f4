// Live progress of a study: /ws/studies/<id>/ sends {"type": "study.progress", "id",
// "status", "runsDone", "runsTotal", "run": {"index", "status", "worker", "progress"}}.
// The page updates its counts and run rows, and reloads (to draw the results) when the
// study finishes; on (re)connect it reads the study's state from the API.
(function () {
  "use strict";
  const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
  const live = window.Schedlab && window.Schedlab.live;
  const panel = document.getElementById("study-panel");
  if (!live || !panel || FINISHED.has(panel.dataset.status)) return;
  const id = panel.dataset.studyId;
  let socket = null;

  function showStudy(status, done) {
    const badge = document.getElementById("study-status");
    if (badge && status) { badge.textContent = status; badge.className = `badge status-${status}`; }
    if (typeof done === "number") {
      document.getElementById("study-runs-done").textContent = String(done);
      const bar = document.getElementById("study-progress");
      bar.value = done;
    }
    if (FINISHED.has(status)) {
      if (socket) socket.close();
      setTimeout(() => location.reload(), 300);
    }
  }

  function showRun(run) {
    const row = document.querySelector(`tr[data-run-index="${run.index}"]`);
    if (!row) return;
    const badge = row.querySelector('[data-field="status"]');
    const label = run.status === "running" && typeof run.progress === "number"
      ? `running ${Math.round(run.progress * 100)}%` : run.status;
    badge.textContent = label;
    badge.className = `badge status-${run.status}`;
    if (run.worker) row.querySelector('[data-field="worker"]').textContent = run.worker;
  }

  function catchUp() {
    live.fetchJSON(panel.dataset.api).then((s) => {
      for (const r of s.runs || []) showRun(r);
      showStudy(s.status, s.runs_done);
    }).catch(() => {});
  }

  socket = live.connect(`/ws/studies/${encodeURIComponent(id)}/`, {
    onMessage(msg) {
      if (msg.type !== "study.progress") return;
      if (msg.run) showRun(msg.run);
      showStudy(msg.status, msg.runsDone);
    },
    onOpen() { catchUp(); },
  });
})();
