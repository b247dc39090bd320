// uner annotate: the page. Plain JS, no dependencies. The server (uner/server/) owns the state; this keeps
// a copy of every cluster's summary, sends the decisions in order and merges what changed back in.
// cluster.js (the cluster in focus) and overlays.js load after this file; start() runs once all have.
"use strict";

const $ = (id) => document.getElementById(id);
const TODO = new Set(["unlabelled", "suggested", "conflict"]);
const TOKEN = new URLSearchParams(location.search).get("token");
const S = {
  clusters: new Map(), order: [], cursor: 0, version: 0, types: [], keyTypes: [], details: new Map(),
  ops: [], sending: 0, working: false, noteDirty: false, bulk: [], bulkCursor: 0, picker: null, boot: null,
};

// ---- talking to the server ------------------------------------------------------------------

async function call(method, path, body) {
  const headers = {};
  if (TOKEN) headers["X-Uner-Token"] = TOKEN;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await resp.json().catch(() => ({ error: `HTTP ${resp.status}` }));
  if (!resp.ok) {
    const err = new Error(data.error || `HTTP ${resp.status}`);
    err.status = resp.status;
    err.id = data.id;
    throw err;
  }
  return data;
}

function showPending() {
  const n = S.ops.length + S.sending, el = $("saved");
  el.dataset.pending = String(n);
  el.textContent = n ? `saving ${n}…` : "all saved";
  el.className = n ? "busy" : "";
}

// Every change goes through one first-in-first-out list, so the server sees them in the order they were
// made. Consecutive decisions are sent together: those made while a save runs go in the next request.
function enqueue(op) {
  S.ops.push(op);
  showPending();
  work();
}

async function work() {
  if (S.working) return;
  S.working = true;
  try {
    while (S.ops.length) {
      if (S.ops[0].kind === "op") {
        const op = S.ops.shift();
        S.sending = 1;
        await op.fn().catch(failed);
      } else {
        const batch = [];
        while (S.ops.length && S.ops[0].kind === "decide" && !batch.some((d) => d.id === S.ops[0].id)) batch.push(S.ops.shift());
        S.sending = batch.length;
        await sendDecisions(batch);
      }
      S.sending = 0;
      showPending();
    }
  } finally {
    S.working = false;
    showPending();
  }
}

async function sendDecisions(batch) {
  while (batch.length) {
    try {
      const decisions = batch.map(({ id, label, status, note }) => ({ id, rev: S.clusters.get(id).rev, label, status, note }));
      merge(await call("POST", "/api/decisions", { decisions, since: S.version }));
      return;
    } catch (err) {
      const bad = batch.filter((d) => err.id === undefined || err.id === null || d.id === err.id);
      for (const d of bad) S.clusters.set(d.id, d.prev); // refused: not saved (a refresh brings any newer state)
      batch = batch.filter((d) => !bad.includes(d));
      S.sending = batch.length;
      await failed(err);
    }
  }
}

async function failed(err) {
  toast(err.message, true);
  await refresh().catch(() => {});
}

function merge(state) {
  for (const c of state.changed || []) {
    S.clusters.set(c.id, c);
    S.details.delete(c.id);
  }
  S.version = Math.max(S.version, state.version);
  renderCounts(state.counts);
  renderHistory(state.history);
  renderQueue();
  if (current() && (state.changed || []).some((c) => c.id === current().id)) renderFocus(false);
}

async function refresh() {
  merge(await call("GET", `/api/state?since=${S.version}`));
}

// ---- the queue ------------------------------------------------------------------------------

function current() {
  return S.clusters.get(S.order[S.cursor]);
}

function applyFilters(keepId) {
  const status = $("f-status").value, type = $("f-type").value, q = $("search").value.trim().toLowerCase();
  const minSize = Number($("f-size").value) || 0, sort = $("f-sort").value;
  const rows = [...S.clusters.values()].filter((c) =>
    (status === "all" || (status === "todo" ? TODO.has(c.status) : c.status === status)) &&
    (type === "" || (type === "-" ? !c.top : c.top === type)) && c.size >= minSize &&
    (!q || c.members.some((m) => m.toLowerCase().includes(q))));
  const key = {
    size: (a, b) => b.size - a.size || a.id - b.id,
    "size-asc": (a, b) => a.size - b.size || a.id - b.id,
    freq: (a, b) => (a.freq === null ? a.rank - b.rank : b.freq - a.freq) || a.id - b.id,
    share: (a, b) => b.share - a.share || b.size - a.size,
    doubt: (a, b) => b.doubt - a.doubt || b.tagged - a.tagged || a.id - b.id,
    spans: (a, b) => b.spans - a.spans || a.id - b.id,
    id: (a, b) => a.id - b.id,
  }[sort];
  S.order = rows.sort(key).map((c) => c.id);
  const at = keepId === undefined ? -1 : S.order.indexOf(keepId);
  S.cursor = at >= 0 ? at : 0;
  renderQueue();
  renderFocus(true);
}

function renderQueue() {
  const list = $("queue-list");
  const start = Math.max(0, S.cursor - 20), end = Math.min(S.order.length, start + 200);
  list.start = start + 1;
  list.replaceChildren(...S.order.slice(start, end).map((id, i) => {
    const c = S.clusters.get(id), li = document.createElement("li");
    li.className = `row ${c.status}` + (start + i === S.cursor ? " current" : "");
    li.dataset.id = id;
    li.innerHTML = `<b></b> <span class="size"></span> <span class="badge ${c.status}"></span> <span class="label"></span>`;
    li.children[0].textContent = c.pivot;
    li.children[1].textContent = c.size;
    li.children[2].textContent = c.status;
    li.children[3].textContent = c.label.join("/") || (c.top ? `? ${c.top}` : "");
    li.onclick = () => { S.cursor = start + i; renderQueue(); renderFocus(true); };
    return li;
  }));
  const cur = list.querySelector(".current");
  if (cur) cur.scrollIntoView({ block: "nearest" });
}

function renderCounts(counts) {
  const order = ["unlabelled", "suggested", "conflict", "confirmed", "rejected"];
  $("counts").replaceChildren(...order.map((s) => {
    const b = document.createElement("span");
    b.className = `badge ${s}`;
    b.dataset.status = s;
    b.textContent = `${s} ${counts[s]}`;
    return b;
  }));
  $("progress-bar").style.width = `${(100 * counts.done) / Math.max(1, counts.total)}%`;
  $("progress-text").textContent = `${counts.done} / ${counts.total} decided`;
  $("progress").dataset.done = counts.done;
}

function renderHistory(history) {
  $("history").replaceChildren(...history.map((h) => {
    const li = document.createElement("li");
    li.textContent = `${h.what}: ` + h.clusters.map(([id, pivot]) => `${pivot} #${id}`).slice(0, 3).join(", ") +
      (h.clusters.length > 3 ? ` +${h.clusters.length - 3}` : "");
    li.dataset.version = h.version;
    return li;
  }));
}

// ---- deciding -------------------------------------------------------------------------------

function decide(label, status) {
  const c = current();
  if (!c) return;
  // show the decision at once; the server's answer replaces it
  S.clusters.set(c.id, { ...c, status, label: label ? [label] : [] });
  enqueue({ kind: "decide", id: c.id, label, status, note: S.noteDirty ? $("note").value : null, prev: c });
  move(1);
}

function move(step) {
  S.cursor = Math.max(0, Math.min(S.order.length - 1, S.cursor + step));
  renderQueue();
  renderFocus(true);
}

function accept() {
  const c = current();
  if (c && c.top) decide(c.top, "confirmed");
  else toast("no suggestion to accept: press 1–9 or t", true);
}

function undo() {
  enqueue({ kind: "op", fn: async () => {
    const state = await call("POST", "/api/undo", { since: S.version });
    merge(state);
    const at = S.order.indexOf(state.undone[0]);
    if (at >= 0) {
      S.cursor = at;
      renderQueue();
      renderFocus(true);
    }
    toast(`undone: ${state.undone.length} cluster(s)`);
  } });
}

function toast(message, bad) {
  const t = $("toast");
  t.textContent = message;
  t.className = bad ? "bad" : "";
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), bad ? 6000 : 2500);
}

// ---- keys -----------------------------------------------------------------------------------

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (!$("picker").hidden) return e.key === "Escape" ? closeOverlays() : pickerKey(e);
  if (!$("term-editor").hidden) {
    if (e.key === "Escape") closeOverlays();
    else if (e.key === "Enter") saveTerm($("term-labels").value.split("/").map((s) => s.trim()).filter(Boolean));
    return;
  }
  if (!$("bulk-view").hidden) return e.key === "Escape" ? closeOverlays() : bulkKey(e);
  if (!$("help").hidden) return closeOverlays();
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
  if (typing) {
    if (e.key === "Escape" || (e.key === "Enter" && document.activeElement.id === "search")) document.activeElement.blur();
    return;
  }
  const c = current();
  const key = e.key;
  if (key >= "1" && key <= "9") {
    const label = S.keyTypes[Number(key) - 1];
    if (label) decide(label, "confirmed");
  } else if (key === "a") accept();
  else if (key === "x") decide(null, "rejected");
  else if (key === " " || key === "n" || key === "ArrowDown") move(1);
  else if (key === "p" || key === "ArrowUp") move(-1);
  else if (key === "u") undo();
  else if (key === "t" && c) openPicker(`Label ${c.pivot} as…`, (name) => decide(name, "confirmed"));
  else if (key === "b") openBulk(c && c.top);
  else if (key === "e" && c) openTermEditor(null);
  else if (key === "w" && S.boot.demand !== null) openWords();
  else if (key === "m") $("note").focus();
  else if (key === "/") $("search").focus();
  else if (key === "?") openOverlay("help");
  else return;
  e.preventDefault();
}

// ---- start ----------------------------------------------------------------------------------

async function start() {
  const boot = await call("GET", "/api/boot");
  S.boot = boot;
  S.types = boot.types;
  S.keyTypes = boot.key_types;
  for (const c of boot.clusters) S.clusters.set(c.id, c);
  S.version = boot.version;
  $("file").textContent = boot.file;
  const tops = new Map();
  for (const c of boot.clusters) if (c.top) tops.set(c.top, (tops.get(c.top) || 0) + 1);
  $("f-type").append(...[...tops].sort((a, b) => b[1] - a[1]).map(([t, n]) => new Option(`${t} (${n})`, t)));
  if (boot.records) $("f-sort").append(new Option("least sure first", "doubt"));
  if (boot.demand !== null) {  // uner adapt's descriptors: what the corpus needs first is the default order
    $("f-sort").append(new Option("most corpus spans first", "spans"));
    $("f-sort").value = "spans";
    $("words").hidden = false;
  }
  $("keys").replaceChildren(...S.keyTypes.map((t, i) => {
    const b = document.createElement("button");
    b.dataset.key = i + 1;
    b.dataset.type = t;
    b.innerHTML = `<kbd>${i + 1}</kbd> `;
    b.append(t);
    b.onclick = () => decide(t, "confirmed");
    return b;
  }));
  renderCounts(boot.counts);
  renderHistory(boot.history);
  applyFilters();
  showPending();
  document.body.dataset.ready = "1";
}

document.addEventListener("keydown", onKey);
for (const id of ["f-status", "f-type", "f-size"]) $(id).addEventListener("change", () => applyFilters(current() && current().id));
$("f-sort").addEventListener("change", () => applyFilters()); // a new order starts at its top
$("search").addEventListener("input", () => applyFilters());
$("note").addEventListener("input", () => (S.noteDirty = true));
$("accept").onclick = accept;
$("reject").onclick = () => decide(null, "rejected");
$("skip").onclick = () => move(1);
$("pick").onclick = () => current() && openPicker(`Label ${current().pivot} as…`, (name) => decide(name, "confirmed"));
$("bulk").onclick = () => openBulk(current() && current().top);
$("undo").onclick = undo;
$("words").onclick = () => openWords();
$("help-button").onclick = () => openOverlay("help");
window.addEventListener("focus", () => refresh().catch((err) => toast(err.message, true)));
setInterval(() => { if (!S.working) refresh().catch(() => {}); }, 5000);
window.addEventListener("beforeunload", (e) => { if (S.working || S.ops.length) e.preventDefault(); });
document.addEventListener("DOMContentLoaded", () => start().catch((err) => toast(`could not load: ${err.message}`, true)));
