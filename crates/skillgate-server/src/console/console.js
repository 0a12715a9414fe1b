// The skillgate console's "try it" form: builds the skill request from the form, sends one
// real JSON-RPC SendMessage to this agent (same origin) and shows what came back. Answers are
// untrusted text: they are only ever put on the page with textContent.
"use strict";
(function () {
  const form = document.getElementById("try");
  if (!form) return;
  const $ = (id) => document.getElementById(id);
  const show = (id, text) => { $(id).textContent = text; };
  const pretty = (v) => JSON.stringify(v, null, 2);

  function argumentsOf() {
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

  function render(resp) {
    $("outcome").hidden = false;
    show("raw", pretty(resp));
    show("output", "");
    show("records", "");
    $("refusal").hidden = true;
    $("paths").replaceChildren();
    if (resp.error) {
      show("state", "JSON-RPC error");
      refusal(String(resp.error.code), resp.error.message || "", []);
      return;
    }
    const task = (resp.result && resp.result.task) || {};
    const status = task.status || {};
    show("state", status.state || "(no task)");
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

  function refusal(code, message, details) {
    $("refusal").hidden = false;
    show("code", code);
    show("message", message);
    for (const d of details) {
      const li = document.createElement("li");
      li.textContent = (d.instance_path === undefined ? "(no instance_path)" : "instance_path " + JSON.stringify(d.instance_path)) +
        (d.keyword ? " · " + d.keyword : "") + (d.message ? " · " + d.message : "");
      li.className = "path";
      $("paths").appendChild(li);
    }
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    let args;
    try {
      args = argumentsOf();
    } catch (e) {
      $("outcome").hidden = false;
      show("state", "not sent: the arguments are not valid JSON (" + e.message + ")");
      return;
    }
    const request = {
      skill: form.dataset.skill,
      skill_version: form.dataset.version,
      interface_digest: form.dataset.digest,
      arguments: args,
    };
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: "console-" + Date.now() + "-" + Math.floor(Math.random() * 1e9),
          role: "ROLE_USER",
          parts: [{ data: request, mediaType: "application/json" }],
        },
      },
    };
    const headers = { "Content-Type": "application/json", "A2A-Version": "1.0", "A2A-Extensions": form.dataset.extension };
    const token = form.elements["__token"];
    if (token && token.value) headers["Authorization"] = "Bearer " + token.value;
    show("state", "sending…");
    $("outcome").hidden = false;
    try {
      const r = await fetch("/", { method: "POST", headers, body: JSON.stringify(body), credentials: "omit" });
      const text = await r.text();
      let json;
      try { json = JSON.parse(text); } catch (_) { json = { error: { code: "HTTP " + r.status, message: text } }; }
      if (!r.ok && !json.error && !json.result) json = { error: { code: "HTTP " + r.status, message: text } };
      render(json);
    } catch (e) {
      show("state", "not sent: " + e.message);
    }
  });
})();
