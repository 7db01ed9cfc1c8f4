// Schedlab live updates: one reconnecting websocket per page, small deltas applied in place.
//
// Protocol (server → browser, JSON):
//   {"type": "hello", "cluster": "<name>", "kinds": [...], "serverTime": <epoch s>}      on connect
//   {"type": "mirror.delta", "cluster": <id>, "kind": "pods", "upserted": [{namespace, name,
//     resourceVersion, <kind's delta fields>}], "deleted": [{namespace, name}],
//     "upsertedCount": n, "deletedCount": n, "truncated": bool, "sentAt": <epoch s>}
//     (truncated deltas carry counts only: re-fetch what is visible)
//   {"type": "mirror.health", "cluster": <id>, "mirror_status": ..., "connected": ..., ...}
//   {"type": "dryrun.progress", "id": <id>, "status": ..., "progress": <0..100>, "podsDone": n, "podsTotal": n}
// Catch-up: after a reconnect nothing that was missed is replayed; instead every
// [data-live-fragment] element is re-fetched (a small HTML fragment of what is
// visible) and handlers get onCatchUp() to re-read their small JSON summaries.
(function () {
  "use strict";
  const Schedlab = (window.Schedlab = window.Schedlab || {});
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const FINAL_CODES = new Set([4400, 4401, 4403, 4404]);

  function status(text) {
    const el = document.getElementById("live-status");
    if (!el) return;
    el.textContent = text || "";
    el.hidden = !text;
  }

  function debounce(fn, ms) {
    let timer = null;
    return function (...args) {
      clearTimeout(timer);
      timer = setTimeout(() => fn.apply(this, args), ms);
    };
  }

  // The page's live connections (for the console and the browser tests:
  // Schedlab.live.connections[0].socket.close() drops one as a network failure would).
  const connections = [];

  // A websocket that reconnects by itself with jittered exponential backoff.
  function connect(path, handlers) {
    const h = handlers || {};
    let ws = null;
    let delay = 500;
    let opened = false; // has it ever been open? then the next open is a reconnect
    let closedByUs = false;
    let timer = null;

    function open() {
      clearTimeout(timer);
      ws = new WebSocket(`${scheme}://${location.host}${path}`);
      ws.onopen = () => {
        delay = 500;
        status("");
        const reconnect = opened;
        opened = true;
        if (h.onOpen) h.onOpen(reconnect);
        if (reconnect && h.onCatchUp) h.onCatchUp();
      };
      ws.onmessage = (e) => {
        let msg;
        try { msg = JSON.parse(e.data); } catch (_) { return; }
        if (h.onMessage) h.onMessage(msg);
      };
      ws.onclose = (e) => {
        if (closedByUs) return;
        if (FINAL_CODES.has(e.code)) {
          status(e.code === 4401 ? "Live updates stopped: please log in again." : "Live updates unavailable.");
          if (h.onFinal) h.onFinal(e.code);
          return;
        }
        status("Live updates paused — reconnecting…");
        const jitter = delay * (0.7 + Math.random() * 0.6);
        timer = setTimeout(open, jitter);
        delay = Math.min(delay * 2, 15000);
      };
    }
    // Come back quickly when the machine wakes up or the network returns.
    const nudge = () => {
      if (ws && ws.readyState === WebSocket.CLOSED && !closedByUs) { delay = 500; open(); }
    };
    window.addEventListener("online", nudge);
    document.addEventListener("visibilitychange", () => { if (!document.hidden) nudge(); });
    open();
    const handle = {
      path,
      close() {
        closedByUs = true; clearTimeout(timer); if (ws) ws.close();
        const i = connections.indexOf(handle);
        if (i >= 0) connections.splice(i, 1);
      },
      get socket() { return ws; },
    };
    connections.push(handle);
    return handle;
  }

  // Re-fetch one fragment (its URL plus the page's current query string) and swap it in.
  async function refreshFragment(el) {
    const url = new URL(el.dataset.liveFragment, location.href);
    if (!url.search) url.search = location.search;
    const resp = await fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } });
    if (resp.redirected || resp.status === 401 || resp.status === 403) {
      status("Session expired: reload to log in.");
      return;
    }
    if (!resp.ok) return;
    const kept = keepState(el);
    el.innerHTML = await resp.text();
    kept.restore();
    el.dispatchEvent(new CustomEvent("schedlab:fragment", { bubbles: true }));
  }

  // A swapped fragment must not throw a keyboard user back to the top of the page:
  // the <details data-key> that were open are opened again, and the focused element
  // gets the focus back, found by its closest [data-key] (a row, a group), its tag and
  // its position there (or by id).
  function keepState(root) {
    const open = new Set([...root.querySelectorAll("details[data-key][open]")].map((d) => d.dataset.key));
    const active = document.activeElement;
    let find = null;
    if (active && active !== root && root.contains(active)) {
      const owner = active.closest("[data-key]");
      if (active.id) {
        find = () => document.getElementById(active.id);
      } else if (owner && root.contains(owner)) {
        const key = owner.dataset.key;
        const tag = active.tagName;
        const index = [...owner.querySelectorAll(tag)].indexOf(active);
        find = () => {
          const again = [...root.querySelectorAll("[data-key]")].find((e) => e.dataset.key === key);
          return again ? (again.tagName === tag ? again : again.querySelectorAll(tag)[index]) : null;
        };
      }
    }
    return {
      restore() {
        for (const d of root.querySelectorAll("details[data-key]")) if (open.has(d.dataset.key)) d.open = true;
        if (!find || (document.activeElement && document.activeElement !== document.body)) return;
        const target = find();
        if (target && root.contains(target)) target.focus({ preventScroll: true });
      },
    };
  }

  async function fetchJSON(url) {
    const resp = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
    if (!resp.ok || resp.redirected) throw new Error(`${url}: ${resp.status}`);
    return resp.json();
  }

  function fragmentsFor(kind) {
    return [...document.querySelectorAll("[data-live-fragment]")].filter((el) => {
      const kinds = (el.dataset.liveKinds || "").split(",").filter(Boolean);
      return !kind || kinds.length === 0 || kinds.includes(kind);
    });
  }

  // Subscribe to a cluster's mirror changes.
  //   opts.kinds: ["pods", "nodes", ...] (empty: everything)
  //   opts.onDelta(msg): return true when handled in place; otherwise the
  //     [data-live-fragment] elements of that kind are re-fetched (debounced)
  //   opts.onHealth(msg), opts.onCatchUp()
  function cluster(name, opts) {
    const o = opts || {};
    const kinds = o.kinds || [];
    const pending = new Set();
    const flush = debounce(() => {
      const els = new Set();
      for (const k of pending) for (const el of fragmentsFor(k)) els.add(el);
      pending.clear();
      els.forEach((el) => refreshFragment(el).catch(() => {}));
    }, o.debounceMs || 600);
    const query = kinds.length ? `?kinds=${kinds.join(",")}` : "";
    return connect(`/ws/clusters/${encodeURIComponent(name)}/${query}`, {
      onMessage(msg) {
        if (msg.type === "mirror.health") {
          applyHealth(msg);
          if (o.onHealth) o.onHealth(msg);
        } else if (msg.type === "mirror.delta") {
          const handled = !msg.truncated && o.onDelta ? o.onDelta(msg) : false;
          if (!handled) { pending.add(msg.kind); flush(); }
        } else if (msg.type === "hello" && o.onHello) {
          o.onHello(msg);
        }
      },
      onCatchUp() {
        for (const el of fragmentsFor(null)) refreshFragment(el).catch(() => {});
        if (o.onCatchUp) o.onCatchUp();
      },
    });
  }

  // Dry-run progress: {"type": "dryrun.progress", "status", "progress", "podsDone", "podsTotal"}.
  function dryRun(id, opts) {
    const o = opts || {};
    return connect(`/ws/dry-runs/${encodeURIComponent(id)}/`, {
      onMessage(msg) { if (msg.type === "dryrun.progress" && o.onProgress) o.onProgress(msg); },
      onCatchUp() { if (o.onCatchUp) o.onCatchUp(); },
      onOpen(reconnect) { if (o.onOpen) o.onOpen(reconnect); },
    });
  }

  // Elements with data-health="<field>" show the mirror's health fields.
  function applyHealth(msg) {
    for (const el of document.querySelectorAll("[data-health]")) {
      const key = el.dataset.health;
      if (!(key in msg)) continue;
      const v = msg[key];
      el.textContent = v === null || v === "" ? "—" : typeof v === "boolean" ? (v ? "yes" : "no") : String(v);
      if (key === "mirror_status") el.className = `status-${v}`;
    }
  }

  function podKey(p) { return `${p.namespace}/${p.name}`; }

  Schedlab.live = { connections, connect, cluster, dryRun, refreshFragment, fetchJSON, debounce, status, applyHealth, podKey };
})();
