// uner annotate: the page's overlays (help, type picker, bulk view, term editor) and the compile button.
// Loaded after app.js, whose state (S), helpers and server calls it uses.
"use strict";

// ---- overlays: help, type picker, bulk view, term editor -------------------------------------

function openOverlay(id) {
  for (const o of document.querySelectorAll(".overlay")) o.hidden = o.id !== id;
}

function closeOverlays() {
  // a hidden overlay's input keeps the focus until the browser's next update; the next key is the page's
  if (document.activeElement && document.activeElement.closest(".overlay")) document.activeElement.blur();
  for (const o of document.querySelectorAll(".overlay")) o.hidden = true;
  S.picker = null;
}

function openPicker(title, onPick) {
  S.picker = { onPick, index: 0, matches: [] };
  $("picker-title").textContent = title;
  $("picker-input").value = "";
  openOverlay("picker");
  renderPicker();
  $("picker-input").focus();
}

function renderPicker() {
  const q = $("picker-input").value.trim().toLowerCase();
  const score = (t) => {
    const name = t.name.toLowerCase();
    if (!q) return 2;
    if (name.startsWith(q)) return 0;
    if (name.includes(q)) return 1;
    return t.description.toLowerCase().includes(q) ? 2 : -1;
  };
  S.picker.matches = S.types.map((t) => [score(t), t]).filter(([s]) => s >= 0).sort((a, b) => a[0] - b[0]).map(([, t]) => t);
  // "ALBUM" or "album under ENT" that names no type yet: offer to add it to types.yaml
  const [, name, parent] = q.match(/^([a-z][a-z0-9_ ]*?)(?: under ([a-z][a-z0-9_]*))?$/) || [];
  const upper = name && name.trim().replace(/ +/g, "_").toUpperCase();
  if (upper && !S.types.some((t) => t.name === upper))
    S.picker.matches.push({ name: upper, parent: parent ? parent.toUpperCase() : null, kind: "new",
                            description: "new type: add it to types.yaml" });
  S.picker.index = Math.min(S.picker.index, Math.max(0, S.picker.matches.length - 1));
  $("picker-list").replaceChildren(...S.picker.matches.slice(0, 40).map((t, i) => {
    const li = document.createElement("li");
    li.className = (i === S.picker.index ? "current " : "") + t.kind;
    li.dataset.name = t.name;
    li.innerHTML = `<b></b> <small></small>`;
    li.children[0].textContent = t.parent ? `${t.parent} › ${t.name}` : t.name;
    li.children[1].textContent = t.description;
    li.onclick = () => pick(t);
    return li;
  }));
}

async function pick(t) {
  const onPick = S.picker.onPick;
  closeOverlays();
  if (t.kind === "new") {
    try {
      S.types = (await call("POST", "/api/types", { name: t.name, parent: t.parent })).types;
    } catch (err) {
      return toast(err.message, true);
    }
    toast(`new type ${t.name} in types.yaml`);
  }
  onPick(t.name);
}

function pickerKey(e) {
  const p = S.picker;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    p.index = Math.max(0, Math.min(p.matches.length - 1, p.index + (e.key === "ArrowDown" ? 1 : -1)));
    renderPicker();
    e.preventDefault();
  } else if (e.key === "Enter" && p.matches.length) {
    pick(p.matches[p.index]);
    e.preventDefault();
  }
}

function openBulk(type) {
  const types = [...new Set([...S.clusters.values()].filter((c) => TODO.has(c.status) && c.top).map((c) => c.top))].sort();
  if (!types.length) return toast("no cluster to do has a suggestion", true);
  const sel = $("bulk-type");
  sel.replaceChildren(...types.map((t) => new Option(t, t)));
  sel.value = types.includes(type) ? type : types[0];
  openOverlay("bulk-view");
  fillBulk();
}

function fillBulk() {
  const type = $("bulk-type").value;
  S.bulk = [...S.clusters.values()].filter((c) => TODO.has(c.status) && c.top === type)
    .sort((a, b) => b.share - a.share || b.size - a.size).slice(0, 50).map((c) => ({ c, on: true }));
  S.bulkCursor = 0;
  $("bulk-count").textContent = `${S.bulk.length} clusters shown (to do, best agreement first)`;
  renderBulk();
}

function renderBulk() {
  $("bulk-list").replaceChildren(...S.bulk.map((row, i) => {
    const li = document.createElement("li");
    li.className = (row.on ? "on" : "off") + (i === S.bulkCursor ? " current" : "") + (row.c.share < 0.5 ? " outlier" : "");
    li.dataset.id = row.c.id;
    li.innerHTML = `<input type="checkbox"> <b></b> <span class="share"></span> <span class="terms"></span>`;
    li.children[0].checked = row.on;
    li.children[0].onchange = () => { row.on = li.children[0].checked; renderBulk(); };
    li.children[1].textContent = `${row.c.pivot} (${row.c.size})`;
    li.children[2].textContent = `${Math.round(100 * row.c.share)}% ${row.c.top}`;
    li.children[3].textContent = row.c.members.slice(0, 12).join(" ");
    return li;
  }));
  const cur = $("bulk-list").querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

function bulkAccept() {
  const chosen = S.bulk.filter((r) => r.on).map((r) => r.c);
  if (!chosen.length) return toast("nothing selected", true);
  const label = $("bulk-type").value;
  enqueue({ kind: "op", fn: async () => {
    const revs = Object.fromEntries(chosen.map((c) => [c.id, S.clusters.get(c.id).rev]));
    merge(await call("POST", "/api/bulk", { revs, label, since: S.version }));
    toast(`${chosen.length} clusters confirmed as ${label}`);
    if (!$("bulk-view").hidden) fillBulk();
  } });
}

function bulkKey(e) {
  const k = e.key;
  if (k === "j" || k === "ArrowDown") S.bulkCursor = Math.min(S.bulk.length - 1, S.bulkCursor + 1);
  else if (k === "k" || k === "ArrowUp") S.bulkCursor = Math.max(0, S.bulkCursor - 1);
  else if (k === " " && S.bulk.length) S.bulk[S.bulkCursor].on = !S.bulk[S.bulkCursor].on;
  else if (k === "o") for (const r of S.bulk) r.on = r.on && r.c.share >= 0.5;
  else if (k === "Enter") return bulkAccept();
  else return;
  e.preventDefault();
  renderBulk();
}

async function openWords() {
  let words;
  try {
    words = (await call("GET", "/api/words")).words;
  } catch (err) {
    return toast(err.message, true);
  }
  S.wordOwn = Object.fromEntries(words.map((w) => [w.term, w.own]));
  const labels = (w) => (w.own ? `own: ${w.own.join("/")}` : Object.entries(w.clusters).map(([l, n]) => `${l} ${n}`).join(", ") || "no label");
  $("words-list").replaceChildren(...words.map((w) => {
    const li = document.createElement("li");
    li.innerHTML = `<a href="#"></a> <small></small> <span class="examples"></span>`;
    li.children[0].textContent = w.term;
    li.children[0].onclick = (e) => { e.preventDefault(); openTermEditor(w.term); };
    li.children[1].textContent = `${w.spans} spans · ${labels(w)}`;
    li.children[2].textContent = w.examples.join(" · ");
    return li;
  }));
  openOverlay("words-view");
}

function openTermEditor(term) {
  const c = current();
  $("term-members").replaceChildren(...(c ? c.members : []).map((m) => new Option(m)));
  $("term-types").replaceChildren(...S.types.map((t) => new Option(t.name)));
  $("term-input").value = term || (c ? c.pivot : "");
  showTermCurrent();
  openOverlay("term-editor");
  $(term ? "term-labels" : "term-input").focus();
}

function showTermCurrent() {
  const c = current(), d = c && S.details.get(c.id), term = $("term-input").value;
  const own = (d && d.overrides[term]) || (S.wordOwn && S.wordOwn[term]);
  $("term-current").textContent = own ? `terms.tsv now: ${term} → ${own.join("/")}` : `${term} has no terms.tsv entry`;
  $("term-labels").value = own ? own.join("/") : "";
}

function saveTerm(labels) {
  const term = $("term-input").value.trim();
  closeOverlays();
  enqueue({ kind: "op", fn: async () => {
    const r = await call("POST", "/api/terms", { term, labels, since: S.version });
    merge(r);
    toast(r.labels.length ? `terms.tsv: ${term} → ${r.labels.join("/")}` : `terms.tsv: ${term} removed`);
    if (S.wordOwn && term in S.wordOwn) S.wordOwn[term] = r.labels.length ? r.labels : null;
    const c = current();
    if (c) loadDetail(c);
  } });
}

async function compile() {
  $("compile").disabled = true;
  $("compile-out").textContent = "compiling… (loads the model; a minute on a small machine)";
  try {
    const r = await call("POST", "/api/compile", {});
    $("compile-out").textContent = r.message;
  } catch (err) {
    $("compile-out").textContent = err.message;
  } finally {
    $("compile").disabled = false;
  }
}

$("bulk-type").onchange = fillBulk;
$("bulk-accept").onclick = bulkAccept;
$("bulk-outliers").onclick = () => { for (const r of S.bulk) r.on = r.on && r.c.share >= 0.5; renderBulk(); };
$("bulk-close").onclick = closeOverlays;
$("term-save").onclick = () => saveTerm($("term-labels").value.split("/").map((s) => s.trim()).filter(Boolean));
$("term-remove").onclick = () => saveTerm([]);
$("term-close").onclick = closeOverlays;
$("compile").onclick = compile;
for (const o of document.querySelectorAll(".overlay")) o.addEventListener("click", (e) => e.target === o && closeOverlays());
$("picker-input").addEventListener("input", () => { S.picker.index = 0; renderPicker(); });
$("term-input").addEventListener("change", showTermCurrent);
