// Live updates for a cluster page: mirror deltas and health over a websocket.
(function () {
  "use strict";
  const script = document.getElementById("live-script");
  const cluster = script.dataset.cluster;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let delay = 500;

  function applyHealth(msg) {
    for (const el of document.querySelectorAll("#health [data-field]")) {
      const key = el.dataset.field;
      if (key in msg) el.textContent = msg[key] === null ? "—" : String(msg[key]);
    }
  }

  function applyDelta(msg) {
    if (msg.kind !== "pods") {
      document.getElementById("live-note").hidden = false;
      return;
    }
    const body = document.querySelector("#pending tbody");
    if (msg.truncated) {
      document.getElementById("live-note").hidden = false;
      return;
    }
    for (const d of msg.deleted || []) {
      const row = body.querySelector(`tr[data-key="${d.namespace}/${d.name}"]`);
      if (row) row.remove();
    }
    for (const p of msg.upserted || []) {
      const key = `${p.namespace}/${p.name}`;
      let row = body.querySelector(`tr[data-key="${key}"]`);
      const pending = p.phase === "Pending" && !p.node_name;
      if (!pending) { if (row) row.remove(); continue; }
      if (!row) {
        row = document.createElement("tr");
        row.dataset.key = key;
        body.appendChild(row);
      }
      row.replaceChildren(...[p.namespace, p.name, p.gpu_requested, p.priority ?? "", "now"].map((v) => {
        const td = document.createElement("td");
        td.textContent = String(v);
        return td;
      }));
    }
  }

  function connect() {
    const ws = new WebSocket(`${scheme}://${location.host}/ws/clusters/${cluster}/`);
    ws.onopen = () => { delay = 500; };
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "mirror.health") applyHealth(msg);
      else if (msg.type === "mirror.delta") applyDelta(msg);
    };
    ws.onclose = () => { setTimeout(connect, delay); delay = Math.min(delay * 2, 15000); };
  }
  connect();
})();
