// uner annotate: the cluster in focus (its suggestion, members, examples, neighbours). Loaded after app.js.
"use strict";

// ---- the cluster in focus -------------------------------------------------------------------

function renderFocus(moved) {
  const c = current();
  $("empty").hidden = !!c;
  $("card").hidden = !c;
  if (!c) return;
  if (moved) {
    $("note").value = "";
    S.noteDirty = false;
  }
  $("card").dataset.id = c.id;
  $("card").dataset.rev = c.rev;
  $("card").dataset.detail = ""; // set to the id once the cluster's details (members' overrides …) are shown
  $("c-pivot").textContent = c.pivot;
  $("c-id").textContent = `#${c.id} · ${c.size} terms`;
  $("c-status").textContent = c.status;
  $("c-status").className = `badge ${c.status}`;
  $("c-label").textContent = c.label.join(" / ");
  $("c-pos").textContent = `${S.cursor + 1} of ${S.order.length}`;
  $("accept").disabled = !c.top;
  renderSuggested(c, null);
  renderMembers(c, null);
  $("c-examples").textContent = "";
  $("c-neighbours").textContent = "";
  $("tagged").hidden = !S.boot.records;
  $("c-tagged").textContent = S.boot.records ? `(${c.tagged} touch this cluster; doubt ${c.doubt.toFixed(2)})` : "";
  $("c-least").textContent = "";
  $("c-demand").textContent = S.boot.demand === null ? "" :
    `its label bears on ${c.spans} of ${S.boot.demand} corpus spans (their predicted descriptors hold a member)`;
  loadDetail(c);
}

async function loadDetail(c) {
  let d = S.details.get(c.id);
  if (!d) {
    try {
      d = await call("GET", `/api/clusters/${c.id}`);
    } catch (err) {
      return toast(err.message, true);
    }
    S.details.set(c.id, d);
  }
  if (current() !== c) return;
  renderSuggested(c, d.evidence);
  renderMembers(c, d.overrides);
  renderExamples(d.examples);
  renderNeighbours(d.neighbours);
  renderLeastSure(d.least_sure);
  if (d.descriptors.length) {  // each word opens the term editor: its own label decides its spans at once
    $("c-demand").append(": ", ...d.descriptors.flatMap(([t, n], i) => {
      const a = document.createElement("a");
      a.href = "#";
      a.className = "word";
      a.textContent = t;
      a.title = `label ${t} on its own (terms.tsv)`;
      a.onclick = (e) => { e.preventDefault(); openTermEditor(t); };
      return [...(i ? [", "] : []), a, ` ${n}`];
    }));
  }
  $("card").dataset.detail = String(c.id);
}

function renderSuggested(c, evidence) {
  const box = $("c-suggested");
  if (!c.suggested.length) {
    box.textContent = c.status === "conflict" ? c.note : "no suggestion from the seed lists";
    return;
  }
  const total = c.suggested.reduce((s, [, n]) => s + n, 0);
  box.replaceChildren(...c.suggested.map(([label, n], i) => {
    const row = document.createElement("div");
    row.className = "sugg" + (i === 0 ? " top" : "");
    row.innerHTML = `<span class="name"></span><span class="bar"><span></span></span><span class="n"></span><span class="ev"></span>`;
    row.children[0].textContent = label;
    row.children[1].firstChild.style.width = `${(100 * n) / total}%`;
    row.children[2].textContent = n;
    row.children[3].textContent = evidence && evidence[label] ? evidence[label].slice(0, 8).join(", ") : "";
    return row;
  }));
  if (c.status === "conflict") {
    const p = document.createElement("p");
    p.className = "conflict-note";
    p.textContent = c.note;
    box.append(p);
  }
}

function renderMembers(c, overrides) {
  $("c-members").replaceChildren(...c.members.map((m) => {
    const b = document.createElement("button");
    b.className = "term";
    b.textContent = m;
    if (overrides && overrides[m]) {
      b.classList.add("override");
      b.title = `terms.tsv: ${overrides[m].join("/")}`;
      b.dataset.override = overrides[m].join("/");
    }
    b.onclick = () => openTermEditor(m);
    return b;
  }));
}

function renderExamples(examples) {
  const box = $("c-examples");
  if (!S.boot.corpus) return (box.textContent = "start with --corpus FILE to see example sentences");
  if (!examples.length) return (box.textContent = "no sentence in the corpus sample holds these terms");
  box.replaceChildren(...examples.map(({ term, text }) => {
    const p = document.createElement("p");
    const at = text.toLowerCase().search(new RegExp(`\\b${term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i"));
    if (at < 0) p.textContent = text;
    else {
      const mark = document.createElement("mark");
      mark.textContent = text.slice(at, at + term.length);
      p.append(text.slice(0, at), mark, text.slice(at + term.length));
    }
    return p;
  }));
}

// Why the cluster is asked: the tagged entities with the lowest scores among those its members occur in.
function renderLeastSure(least) {
  if (!least.length) return ($("c-least").textContent = "no tagged entity holds a member of this cluster");
  $("c-least").replaceChildren(...least.map(({ text, type, score, snippet, span }) => {
    const p = document.createElement("p");
    p.className = "entity";
    p.dataset.text = text;
    p.innerHTML = `<span class="score"></span> <span class="label"></span> `;
    p.children[0].textContent = score.toFixed(2);
    p.children[1].textContent = type || "";
    const mark = document.createElement("mark");
    mark.textContent = snippet.slice(span[0], span[1]);
    p.append(snippet.slice(0, span[0]), mark, snippet.slice(span[1]));
    return p;
  }));
}

function renderNeighbours(neighbours) {
  const box = $("c-neighbours");
  if (!S.boot.graph) return (box.textContent = "no neighbour graph yet (`uner cluster` or `uner neighbors` makes it)");
  if (!neighbours.length) return (box.textContent = "no linked clusters");
  box.replaceChildren(...neighbours.map((n) => {
    const row = document.createElement("div");
    row.className = "neighbour";
    row.dataset.id = n.id;
    row.innerHTML = `<b></b> <span class="badge"></span> <span class="label"></span> <span class="terms"></span>`;
    row.children[0].textContent = `${n.pivot} #${n.id}`;
    row.children[1].textContent = n.status;
    row.children[1].classList.add(n.status);
    row.children[2].textContent = n.label.join("/");
    row.children[3].textContent = n.terms.map(([t, cos]) => `${t} ${cos.toFixed(2)}`).join(", ");
    return row;
  }));
}
