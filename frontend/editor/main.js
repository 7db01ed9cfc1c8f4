// The profile editor's CodeMirror 6 bundle: window.SchedlabEditor.
//   attach(textarea, {schemaUrl})  a YAML editor in place of the textarea, kept in
//                                  sync with it (the form still posts the textarea)
//   merge(element, a, b)           the side-by-side diff of two versions
// The page's editor.js keeps doing validation and the knobs form on the textarea;
// it tells this editor about problems ("schedlab:problems") and rewrites
// ("schedlab:replaced") through events on the textarea.
import { basicSetup } from "codemirror";
import { EditorState } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { yaml } from "@codemirror/lang-yaml";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { autocompletion } from "@codemirror/autocomplete";
import { MergeView } from "@codemirror/merge";
import { completionSource } from "./complete.js";

const theme = EditorView.theme({
  "&": { fontSize: "13px", border: "1px solid #bbb", borderRadius: "4px", maxWidth: "100%" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" },
  "&.cm-focused": { outline: "3px solid #2962ff", outlineOffset: "-1px" },
});

function diagnostics(doc, problems) {
  const out = [];
  for (const p of problems) {
    if (!p.line || p.line > doc.lines) continue;
    const line = doc.line(p.line);
    out.push({ from: line.from, to: Math.max(line.to, line.from), severity: "error", message: `${p.field}: ${p.message}`, source: p.field });
  }
  return out;
}

function attach(area, opts = {}) {
  let schema = null;
  if (opts.schemaUrl) {
    fetch(opts.schemaUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then((r) => (r.ok ? r.json() : null)).then((s) => { schema = s; }).catch(() => {});
  }
  let syncing = false;
  const view = new EditorView({
    parent: area.parentElement,
    state: EditorState.create({
      doc: area.value,
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        autocompletion({ override: [(ctx) => completionSource(ctx, () => schema)] }),
        EditorView.lineWrapping,
        theme,
        EditorView.contentAttributes.of({ "aria-label": "KubeSchedulerConfiguration (YAML)", "aria-describedby": "validation" }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged || syncing) return;
          area.value = u.state.doc.toString();
          area.dispatchEvent(new Event("input", { bubbles: true }));
        }),
      ],
    }),
  });
  area.addEventListener("schedlab:replaced", () => {
    if (view.state.doc.toString() === area.value) return;
    syncing = true;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: area.value } });
    syncing = false;
  });
  area.addEventListener("schedlab:problems", (e) => {
    view.dispatch(setDiagnostics(view.state, diagnostics(view.state.doc, e.detail || [])));
  });
  area.closest(".code-editor")?.classList.add("has-codemirror");
  view.dom.id = "cm-document";
  area.schedlabView = view;
  return view;
}

function merge(element, a, b) {
  const ro = [basicSetup, yaml(), EditorState.readOnly.of(true), EditorView.editable.of(false), theme];
  return new MergeView({ a: { doc: a, extensions: ro }, b: { doc: b, extensions: ro }, parent: element, collapseUnchanged: { margin: 3 } });
}

window.SchedlabEditor = { attach, merge };
