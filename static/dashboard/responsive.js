// Tables on phones: every table with a header row gets class "stack" and each
// cell a data-label naming its column, so app.css can show rows as cards at
// 640 px and below. Rows that live updates add later are labelled as they arrive.
(function () {
  "use strict";
  function headers(table) {
    const row = table.tHead && table.tHead.rows[table.tHead.rows.length - 1];
    return row ? Array.from(row.cells, (c) => c.textContent.trim()) : null;
  }
  function label(table) {
    const names = headers(table);
    if (!names || table.dataset.noStack !== undefined) return;
    table.classList.add("stack");
    for (const body of table.tBodies) {
      for (const tr of body.rows) {
        let col = 0;
        for (const cell of tr.cells) {
          if (cell.tagName === "TD" && !cell.hasAttribute("data-label") && names[col] !== undefined) {
            cell.dataset.label = cell.colSpan > 1 ? "" : names[col];
          }
          col += cell.colSpan || 1;
        }
      }
    }
  }
  function all(root) {
    if (root.tagName === "TABLE") label(root);
    else if (root.querySelectorAll) for (const t of root.querySelectorAll("table")) label(t);
  }
  all(document);
  const pending = new Set();
  let queued = false;
  new MutationObserver((records) => {
    for (const r of records) {
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        const t = n.tagName === "TABLE" ? n : n.closest && n.closest("table");
        if (t) pending.add(t); else if (n.querySelector && n.querySelector("table")) pending.add(n);
      }
    }
    if (!queued && pending.size) {
      queued = true;
      requestAnimationFrame(() => { queued = false; for (const t of pending) all(t); pending.clear(); });
    }
  }).observe(document.body, { childList: true, subtree: true });
})();
