// The skillgate console's one script, for the served console and for `skillgate inspect`.
// Each part acts only on the elements its page has:
// - form#try: builds the skill request from the form and either sends one real JSON-RPC
//   SendMessage to this agent (same origin), or, with data-action, asks the inspector for a
//   validated call to the remote agent; shows what came back and links the task view.
// - section#task: live events (JSON-RPC SubscribeToTask on this agent, or the inspector's
//   relay of the remote one, data-events) and the Cancel button.
// - section#conformance: starts an inspector conformance run and shows its progress.
// Answers are untrusted text: they are only ever put on the page with textContent.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const show = (id, text) => { const el = $(id); if (el) el.textContent = text; };
  const pretty = (v) => JSON.stringify(v, null, 2);
  const a2aHeaders = (extension) => {
    const h = { "Content-Type": "application/json", "A2A-Version": "1.0" };
    if (extension) h["A2A-Extensions"] = extension;
    return h;
  };
  const rpc = (method, params) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

  function refusal(code, message, details) {
    $("refusal").hidden = false;
    show("code", code);
    show("message", message);
    for (const d of details || []) {
      const li = document.createElement("li");
      li.textContent = (d.instance_path === undefined ? "(no instance_path)" : "instance_path " + JSON.stringify(d.instance_path)) +
        (d.keyword ? " · " + d.keyword : "") + (d.message ? " · " + d.message : "");
      li.className = "path";
      $("paths").appendChild(li);
    }
  }

  function taskLink(form, id) {
    if (!id) return;
    $("task-line").hidden = false;
    const a = $("task-link");
    a.textContent = id;
    a.href = form.dataset.taskHref + encodeURIComponent(id);
  }

  function reset() {
    $("outcome").hidden = false;
    show("output", "");
    show("records", "");
    $("refusal").hidden = true;
    $("task-line").hidden = true;
    $("paths").replaceChildren();
  }

  // The served console: a JSON-RPC answer of this agent.
  function renderA2a(form, resp) {
    reset();
    show("raw", pretty(resp));
    if (resp.error) {
      show("state", "JSON-RPC error");
      refusal(String(resp.error.code), resp.error.message || "", []);
      return;
    }
    const task = (resp.result && resp.result.task) || {};
    const status = task.status || {};
    show("state", status.state || "(no task)");
    taskLink(form, task.id);
    const part = status.message && status.message.parts && status.message.parts[0];
    const err = part && part.data;
    if (err && err.code && /REJECTED|FAILED/.test(status.state || "")) {
      refusal(err.code, err.message || "", err.details || []);
    }
    const arts = task.artifacts || [];
    const data = (a) => (a.parts || []).map((p) => (p.data !== undefined ? p.data : p.text));
    const out = arts.filter((a) => a.artifactId === "result");
    const recs = arts.filter((a) => a.artifactId !== "result");
    show("output", out.length ? pretty(data(out[0])[0]) : "(none)");
    show("records", recs.length ? pretty(recs.map((a) => ({ kind: a.name, id: a.artifactId, data: data(a)[0] }))) : "(none)");
  }

  // The inspector: its validated call's answer ({ok, state, task_id, output, records} or
  // {ok: false, error: {code, message, details, where, step, task_id}}).
  function renderInspector(form, resp) {
    reset();
    show("raw", pretty(resp));
    if (!resp.ok) {
      const e = resp.error || {};
      show("state", "refused (" + (e.where || "local") + (e.step ? ", step " + e.step : "") + ")");
      refusal(e.code || "error", e.message || "", e.details || []);
      taskLink(form, e.task_id);
      return;
    }
    show("state", resp.state || "");
    taskLink(form, resp.task_id);
    show("output", pretty(resp.output));
    show("records", (resp.records || []).length ? pretty(resp.records) : "(none)");
  }

  function argumentsOf(form) {
    const raw = form.elements["__arguments"].value.trim();
    if (raw !== "") return JSON.parse(raw);
    const args = {};
    for (const el of form.querySelectorAll("[data-kind]")) {
      const v = el.value;
      if (v === "") continue;
      args[el.name] = el.dataset.kind === "string" ? v : JSON.parse(v);
    }
    return args;
  }

  const form = $("try");
  if (form) form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let args;
    try {
      args = argumentsOf(form);
    } catch (e) {
      $("outcome").hidden = false;
      show("state", "not sent: the arguments are not valid JSON (" + e.message + ")");
      return;
    }
    show("state", "sending…");
    $("outcome").hidden = false;
    const inspector = form.dataset.action;
    let url, headers, body;
    if (inspector) {
      url = inspector;
      headers = { "Content-Type": "application/json" };
      body = JSON.stringify({ agent: form.dataset.agent, skill: form.dataset.skill, arguments: args });
    } else {
      url = "/";
      headers = a2aHeaders(form.dataset.extension);
      const token = form.elements["__token"];
      if (token && token.value) headers["Authorization"] = "Bearer " + token.value;
      body = rpc("SendMessage", {
        message: {
          messageId: "console-" + Date.now() + "-" + Math.floor(Math.random() * 1e9),
          role: "ROLE_USER",
          parts: [{ data: {
            skill: form.dataset.skill,
            skill_version: form.dataset.version,
            interface_digest: form.dataset.digest,
            arguments: args,
          }, mediaType: "application/json" }],
        },
      });
    }
    try {
      const r = await fetch(url, { method: "POST", headers, body, credentials: inspector ? "same-origin" : "omit" });
      const text = await r.text();
      let json;
      try { json = JSON.parse(text); } catch (_) { json = null; }
      if (inspector) {
        renderInspector(form, json || { ok: false, error: { code: "HTTP " + r.status, message: text } });
      } else {
        if (!json || (!r.ok && !json.error && !json.result)) json = { error: { code: "HTTP " + r.status, message: text } };
        renderA2a(form, json);
      }
    } catch (e) {
      show("state", "not sent: " + e.message);
    }
  });

  // The task view.
  const task = $("task");
  const TERMINAL = /^TASK_STATE_(COMPLETED|FAILED|CANCELED|REJECTED)$/;
  // A new state on the page: the status line, its message, and no Cancel once terminal.
  function setStatus(status) {
    const state = (status || {}).state || "";
    show("task-state", state);
    const parts = ((status || {}).message || {}).parts || [];
    const text = parts.map((p) => (p.text !== undefined ? p.text : JSON.stringify(p.data, null, 2))).join("\n");
    if (text) show("task-message", text);
    const cancel = $("cancel");
    if (cancel && TERMINAL.test(state)) cancel.hidden = true;
  }
  function eventLine(ev) {
    const li = document.createElement("li");
    let text;
    if (ev.statusUpdate) {
      text = "status " + ((ev.statusUpdate.status || {}).state || "");
      setStatus(ev.statusUpdate.status);
    } else if (ev.artifactUpdate) {
      const a = ev.artifactUpdate.artifact || {};
      text = "artifact " + (a.name || "") + " (" + (a.artifactId || "") + ")";
    } else if (ev.task) {
      text = "task " + ((ev.task.status || {}).state || "");
      setStatus(ev.task.status);
    } else if (ev.message) {
      text = "message";
    } else {
      text = JSON.stringify(ev);
    }
    li.textContent = new Date().toISOString().slice(11, 23) + " " + text;
    $("events").appendChild(li);
  }

  // SubscribeToTask on this agent: a JSON-RPC answer as server-sent events, read from fetch.
  async function subscribeSameAgent(id) {
    show("events-note", "following the task…");
    try {
      const r = await fetch("/", {
        method: "POST",
        headers: Object.assign(a2aHeaders(task.dataset.extension), { Accept: "text/event-stream" }),
        body: rpc("SubscribeToTask", { id }),
        credentials: "omit",
      });
      if (!(r.headers.get("content-type") || "").startsWith("text/event-stream")) {
        const v = await r.json().catch(() => ({}));
        show("events-note", "no live events: " + ((v.error && v.error.message) || "HTTP " + r.status));
        return;
      }
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("\n");
          if (!data) continue;
          const msg = JSON.parse(data);
          if (msg.error) { show("events-note", "error: " + msg.error.message); continue; }
          eventLine(msg.result || {});
        }
      }
      show("events-note", "the stream ended.");
    } catch (e) {
      show("events-note", "events stopped: " + e.message);
    }
  }

  // The inspector's relay of the remote SubscribeToTask.
  function subscribeRelay(url) {
    show("events-note", "following the task…");
    const es = new EventSource(url);
    es.onmessage = (m) => { try { eventLine(JSON.parse(m.data)); } catch (_) { /* not JSON: skipped */ } };
    es.addEventListener("end", (m) => { show("events-note", m.data || "the stream ended."); es.close(); });
    es.onerror = () => { show("events-note", "the event stream was interrupted."); es.close(); };
  }

  if (task && task.dataset.terminal !== "true") {
    if (task.dataset.events) subscribeRelay(task.dataset.events);
    else subscribeSameAgent(task.dataset.taskId);
    const cancel = $("cancel");
    if (cancel) {
      cancel.hidden = false;
      cancel.addEventListener("click", async () => {
        const r = await fetch("/", { method: "POST", headers: a2aHeaders(null), body: rpc("CancelTask", { id: task.dataset.taskId }), credentials: "omit" });
        const v = await r.json().catch(() => ({}));
        const out = $("cancel-outcome");
        out.hidden = false;
        if (v.error) {
          out.textContent = "not canceled: " + v.error.message;
        } else {
          const status = (v.result || {}).status || {};
          out.textContent = "cancel answered: " + (status.state || "");
          setStatus(status);
        }
      });
    }
  }

  // The inspector's conformance run with live progress.
  const conf = $("conformance");
  const start = $("conformance-start");
  if (conf && start) {
    start.hidden = false;
    start.addEventListener("click", async () => {
      start.disabled = true;
      show("conformance-progress", "starting…");
      try {
        const r = await fetch(conf.dataset.action, {
          method: "POST", headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ agent: conf.dataset.agent }), credentials: "same-origin",
        });
        const v = await r.json();
        if (!v.run) { show("conformance-progress", "not started: " + (v.message || r.status)); start.disabled = false; return; }
        poll(conf.dataset.action + "/" + encodeURIComponent(v.run));
      } catch (e) {
        show("conformance-progress", "not started: " + e.message);
        start.disabled = false;
      }
    });
  }

  async function poll(url) {
    const r = await fetch(url, { credentials: "same-origin" });
    const v = await r.json().catch(() => ({}));
    if (!v.done) {
      show("conformance-progress", "running: " + (v.requests || 0) + " requests" + (v.last ? " · last " + v.last : ""));
      setTimeout(() => poll(url), 400);
      return;
    }
    show("conformance-progress", "finished: " + v.outcome + " · " + v.requests + " requests · " +
      v.summary.pass + " pass, " + v.summary.fail + " fail, " + v.summary.skip + " skip");
    const body = $("conformance-checks");
    body.replaceChildren();
    for (const c of v.checks || []) {
      const tr = document.createElement("tr");
      for (const t of [c.id, c.skill || "", c.verdict, c.title]) {
        const td = document.createElement("td");
        td.textContent = t;
        tr.appendChild(td);
      }
      tr.className = "verdict-" + c.verdict;
      body.appendChild(tr);
    }
    $("conformance-results").hidden = false;
    start.disabled = false;
  }
})();
