// Completion for KubeSchedulerConfiguration YAML from GET /api/v1/profiles/schema/:
// field names from the JSON Schema at the cursor's path, plugin names (only those
// implementing the extension point, under plugins.<point>), extension points under
// plugins, and a pluginConfig entry's args from that plugin's args schema.

// The keys above the cursor's line, outermost first, and the "name" of the
// pluginConfig entry whose args we are in. ``want``: a parent key's column must
// be smaller (for a list item's line: its dash column + 1, so the parent key may
// stand at the dash's column, as kubectl writes lists).
function context(doc, lineNo, want) {
  const path = [];
  let argsCol = null;
  let entryName = null;
  for (let n = lineNo - 1; n >= 1 && want > 0; n--) {
    const text = doc.line(n).text;
    if (!text.trim() || /^\s*#/.test(text)) continue;
    const m = /^(\s*)(-\s+)?([A-Za-z][\w-]*)\s*:\s*(.*)$/.exec(text);
    if (!m) continue;
    const dashCol = m[1].length;
    const keyCol = dashCol + (m[2] ? m[2].length : 0);
    const value = m[4].replace(/\s+#.*$/, "").trim();
    if (argsCol !== null && entryName === null && keyCol === argsCol && m[3] === "name" && value) {
      entryName = value;
    }
    if (keyCol < want && !value) {
      path.unshift(m[3]);
      if (m[3] === "args") argsCol = keyCol;
      want = m[2] ? dashCol + 1 : keyCol;
    } else if (m[2] && keyCol <= want) {
      want = dashCol + 1;
    }
  }
  return { path, entryName };
}

function walk(schema, path) {
  let node = schema;
  for (const key of path) {
    if (!node) return null;
    if (node.type === "array") node = node.items;
    node = node && node.properties ? node.properties[key] : null;
  }
  if (node && node.type === "array") node = node.items;
  return node;
}

function keysOf(node) {
  return node && node.properties ? Object.keys(node.properties) : [];
}

export function completionSource(ctx, getSchema) {
  const s = getSchema();
  if (!s) return null;
  const line = ctx.state.doc.lineAt(ctx.pos);
  const before = line.text.slice(0, ctx.pos - line.from);
  const word = ctx.matchBefore(/[\w-]*/);
  const from = word ? word.from : ctx.pos;

  // "- name: Fo|" : a plugin name
  const nameValue = /^(\s*)(-\s+)?name:\s*[\w-]*$/.exec(before);
  if (nameValue) {
    const indent = nameValue[2] ? nameValue[1].length + 1 : nameValue[1].length;
    const { path } = context(ctx.state.doc, line.number, indent);
    const point = path[path.length - 2];
    const names = Object.entries(s.plugins)
      .filter(([, points]) => !point || !s.extensionPoints.includes(point) || point === "multiPoint" || points.includes(point))
      .map(([name, points]) => ({ label: name, type: "class", detail: points.join(", ") }));
    return { from, options: names, validFor: /^[\w-]*$/ };
  }

  // a key: "  fo|" or "- fo|"
  const keyPos = /^(\s*)(-\s+)?[\w-]*$/.exec(before);
  if (!keyPos) return null;
  if (!ctx.explicit && (!word || word.from === word.to)) return null;
  const indent = keyPos[2] ? keyPos[1].length + 1 : keyPos[1].length;
  const { path, entryName } = context(ctx.state.doc, line.number, indent);
  let options = [];
  const last = path[path.length - 1];
  if (last === "plugins") {
    options = s.extensionPoints.map((p) => ({ label: p, type: "property", detail: "extension point", apply: `${p}:` }));
  } else if (path.includes("args")) {
    const args = s.pluginArgs[entryName] || null;
    const inner = walk(args, path.slice(path.indexOf("args") + 1));
    options = keysOf(inner).filter((k) => k !== "apiVersion" && k !== "kind")
      .map((k) => ({ label: k, type: "property", detail: `${entryName} args`, apply: `${k}: ` }));
  } else {
    options = keysOf(walk(s.schema, path)).map((k) => ({ label: k, type: "property", apply: `${k}: ` }));
  }
  if (!options.length) return null;
  return { from, options, validFor: /^[\w-]*$/ };
}
