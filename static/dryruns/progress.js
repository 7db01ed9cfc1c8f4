// Live progress of dry-runs: every .run-panel[data-run-id] that is not finished
// subscribes to /ws/dry-runs/<id>/ (Schedlab.live.dryRun) and shows each
// dryrun.progress message as it arrives; on (re)connect it reads the run's
// current state from the API so that nothing missed while away is lost.
(function () {
  "use strict";
  const FINISHED = new Set(["succeeded", "failed", "cancelled"]);
  const live = window.Schedlab && window.Schedlab.live;
  if (!live) return;

  function field(panel, name) {
    return panel.querySelector(`[data-field="${name}"]`) || document.getElementById(`run-${name}`);
  }

  // every other place that shows this run's status (run lists, tables) follows too
  function badges(id, status) {
    if (!status) return;
    for (const el of document.querySelectorAll(`[data-run-status="${CSS.escape(String(id))}"]`)) {
      el.textContent = status;
      el.className = `badge status-${status}`;
      el.dataset.status = status;
    }
  }

  function show(panel, state, fromSocket) {
    const status = state.status;
    const badge = field(panel, "status");
    if (badge && status) {
      badge.textContent = status;
      badge.className = `badge status-${status}`;
    }
    badges(panel.dataset.runId, status);
    const bar = panel.querySelector("progress");
    if (bar && typeof state.progress === "number") {
      bar.value = state.progress;
      bar.textContent = `${state.progress}%`;
    }
    const pods = field(panel, "pods");
    const done = state.podsDone ?? state.pods_done;
    const total = state.podsTotal ?? state.pods_total;
    if (pods && done !== undefined) pods.textContent = total ? `${done} / ${total} pods` : `${done} pods`;
    if (fromSocket) {
      const li = document.createElement("li");
      li.className = "run-event";
      li.textContent = `${new Date().toLocaleTimeString()} ${status} ${state.progress ?? ""}%` +
        (done !== undefined ? ` (${done} pods)` : "");
      panel.querySelector(".run-events")?.appendChild(li);
    }
    panel.dataset.status = status;
    if (FINISHED.has(status)) finished(panel, status);
  }

  function finished(panel, status) {
    if (panel.dataset.done) return;
    panel.dataset.done = "1";
    if (panel.socket) panel.socket.close();
    if (panel.dataset.reloadWhenDone) {
      // the results (or the comparison) are rendered by the server
      setTimeout(() => location.reload(), 300);
      return;
    }
    const note = document.createElement("p");
    note.className = status === "succeeded" ? "ok" : "error";
    note.setAttribute("role", "status");
    const link = document.createElement("a");
    link.href = panel.dataset.results;
    link.textContent = "results";
    const again = document.createElement("a");
    again.href = location.pathname + location.search.replace(/([?&])run=\d+&?/, "$1");
    again.textContent = "refresh to compare or apply";
    note.append(`Dry-run ${status}: see the `, link, " or ", again, ".");
    panel.appendChild(note);
  }

  // the state read on (re)connect was read before any message that overtook it:
  // once the run is shown finished, an older "running" must not bring it back
  async function catchUp(panel) {
    try {
      const state = await live.fetchJSON(panel.dataset.api);
      if (!panel.dataset.done) show(panel, state, false);
    } catch (_) { /* the socket's next message will do */ }
  }

  const watched = new Set();
  for (const panel of document.querySelectorAll(".run-panel[data-run-id]")) {
    if (FINISHED.has(panel.dataset.status)) continue;
    watched.add(panel.dataset.runId);
    panel.socket = live.dryRun(panel.dataset.runId, {
      onProgress(msg) { show(panel, msg, true); },
      onOpen() {
        panel.dataset.connected = "1";
        for (const el of document.querySelectorAll(`[data-run-status="${CSS.escape(panel.dataset.runId)}"]`)) {
          el.dataset.connected = "1";
        }
        catchUp(panel);
      },
    });
  }

  // status badges of runs without a panel: one socket per unfinished run
  for (const el of document.querySelectorAll("[data-run-status][data-api]")) {
    const id = el.dataset.runStatus;
    if (watched.has(id) || FINISHED.has(el.dataset.status)) continue;
    watched.add(id);
    let ended = false;
    const follow = (status) => {
      if (ended) return; // a finished run's status is final (see catchUp)
      badges(id, status);
      if (FINISHED.has(status)) {
        ended = true;
        socket.close();
      }
    };
    const socket = live.dryRun(id, {
      onProgress(msg) { follow(msg.status); },
      onOpen() {
        el.dataset.connected = "1";
        live.fetchJSON(el.dataset.api).then((state) => follow(state.status)).catch(() => {});
      },
    });
  }
})();
