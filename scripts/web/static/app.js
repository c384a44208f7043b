// kakurega web app: one websocket to the server that served this page; the server sends only the
// view of the table this page may see (see kakurega/web/session.py).
"use strict";

const $ = (id) => document.getElementById(id);
let socket = null;
let envs = [];
let current = null;        // the last state or replay message
let eventCount = 0;        // events of the open game received so far
let selection = null;      // candidate actions after a click that stood for several
let botTimer = null;
let paused = false;
let replayTimer = null;

// ------------------------------------------------------------------ connection
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => {
    $("connection").textContent = "connected";
    const game = new URLSearchParams(location.hash.slice(1)).get("game");
    if (game) send({ type: "join", game: game });
  };
  socket.onclose = () => { $("connection").textContent = "disconnected (reload the page)"; };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
}

function send(message) {
  message.seen = eventCount;
  socket.send(JSON.stringify(message));
}

function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

function receive(message) {
  if (message.type === "error") { showError(message.message); scheduleBot(); return; }
  showError("");
  if (message.type === "state") showState(message);
  else if (message.type === "replay") showReplay(message);
}

// ------------------------------------------------------------------ the table
function actionsOf(element) {
  return element.dataset.actions.split(",").filter((s) => s !== "").map(Number);
}

function drawTable(message, legal) {
  const table = $("table");
  table.innerHTML = message.svg;
  table.dataset.waitingFor = message.waiting_for || "";
  table.dataset.over = message.over ? "true" : "false";
  table.dataset.legal = [...legal].join(",");
  for (const shape of table.querySelectorAll("[data-actions]")) {
    if (actionsOf(shape).some((a) => legal.has(a))) shape.classList.add("legal");
  }
  $("text").textContent = message.text;
}

function showResult(message) {
  const box = $("result");
  if (!message.over) { box.hidden = true; box.textContent = ""; return; }
  const result = message.result;
  box.hidden = false;
  box.dataset.returns = JSON.stringify(result.returns);
  box.dataset.end = result.end;
  const lines = Object.entries(result.returns).map(([agent, value]) => {
    const who = agent === message.you ? `${agent} (you)` : agent;
    return `${who}: ${value >= 0 ? "+" : ""}${value} (${result.outcomes[agent]})`;
  });
  box.textContent = `Game over (${result.end}). ` + lines.join("; ") +
    (message.record ? `. Record saved: ${message.record}` : "");
}

function legalSet(message) {
  return new Set(message.waiting_for === "you" ? Object.keys(message.legal).map(Number) : []);
}

// ------------------------------------------------------------------ playing
function showState(message) {
  if (!current || current.game !== message.game) {
    $("events").innerHTML = "";
    eventCount = 0;
    history.replaceState(null, "", `#game=${message.game}`);
  }
  current = message;
  selection = null;
  $("chooser").hidden = true;
  $("replay-controls").hidden = true;
  for (const text of message.events) {
    const item = document.createElement("li");
    item.textContent = text;
    $("events").appendChild(item);
  }
  $("events").scrollTop = $("events").scrollHeight;
  eventCount = message.event_count;
  drawTable(message, legalSet(message));
  const seats = Object.entries(message.seats).map(([a, s]) => `${a}: ${s}`).join(", ");
  let status;
  if (message.over) status = "Game over.";
  else if (message.waiting_for === "you") status = `Your turn (${message.you}): click a highlighted part of the table.`;
  else status = `${message.to_move} is thinking...`;
  $("status").textContent = `${message.env} - ${seats}. ${status}`;
  showResult(message);
  scheduleBot();
}

function scheduleBot() {
  clearTimeout(botTimer);
  if (!current || current.type !== "state" || current.over || current.waiting_for !== "bot" || paused) return;
  botTimer = setTimeout(() => send({ type: "next" }), Number($("speed").value));
}

function play(action) {
  selection = null;
  $("chooser").hidden = true;
  send({ type: "act", action: action });
}

// A click stands for the legal actions of the clicked shape; one left: play it. Several: highlight the
// shapes that tell them apart and intersect again on the next click; when they are few, or no shape
// tells them apart, also list them by name.
const CHOOSER_SIZE = 12;
function clickTable(event) {
  if (!current || current.type !== "state" || current.waiting_for !== "you") return;
  const shape = event.target.closest("[data-actions]");
  const legal = legalSet(current);
  clearMarks();
  if (!shape) { selection = null; $("chooser").hidden = true; return; }
  const actions = actionsOf(shape).filter((a) => legal.has(a));
  if (actions.length === 0) { showError("That part of the table is not a legal move now."); return; }
  showError("");
  let candidates = selection ? actions.filter((a) => selection.has(a)) : actions;
  if (candidates.length === 0) candidates = actions;  // a click elsewhere starts a new choice
  if (candidates.length === 1) { play(candidates[0]); return; }
  selection = new Set(candidates);
  shape.classList.add("chosen");
  let narrows = false;
  for (const other of $("table").querySelectorAll("[data-actions]")) {
    const meet = actionsOf(other).filter((a) => selection.has(a));
    if (meet.length > 0 && other !== shape) other.classList.add("candidate");
    if (meet.length > 0 && meet.length < selection.size) narrows = true;
  }
  if (!narrows || selection.size <= CHOOSER_SIZE) showChooser([...selection]);
}

function clearMarks() {
  for (const shape of $("table").querySelectorAll(".candidate, .chosen")) shape.classList.remove("candidate", "chosen");
}

function showChooser(actions) {
  const box = $("chooser");
  box.innerHTML = "";
  const title = document.createElement("div");
  title.textContent = "Which one?";
  box.appendChild(title);
  for (const action of actions) {
    const button = document.createElement("button");
    button.textContent = current.legal[String(action)];
    button.dataset.action = action;
    button.onclick = () => play(action);
    box.appendChild(button);
  }
  box.hidden = false;
}

// ------------------------------------------------------------------ setup form
function selectedEnv() {
  return envs.find((e) => e.name === $("env").value);
}

function fillEnv() {
  const env = selectedEnv();
  $("summary").textContent = env.summary;
  $("preset").innerHTML = "";
  env.configurations.forEach((config, index) => {
    const text = Object.entries(config.options).map(([k, v]) => `${k}=${v}`).join(", ") || "defaults";
    $("preset").add(new Option(`${text} (${config.agents.length} seat${config.agents.length > 1 ? "s" : ""})`, index));
  });
  fillPreset();
}

function fillPreset() {
  const config = selectedEnv().configurations[Number($("preset").value)];
  $("options").value = JSON.stringify(config.options);
  $("seat").innerHTML = "";
  $("seat").add(new Option("random", "random"));
  config.agents.forEach((agent, seat) => $("seat").add(new Option(agent, seat)));
  $("seat").add(new Option("none: watch the bots", "watch"));
  $("view").innerHTML = "";
  $("view").add(new Option("spectator", "spectator"));
  for (const agent of config.agents) $("view").add(new Option(agent, agent));
  $("view-label").hidden = $("seat").value !== "watch";
}

function start() {
  let options;
  try { options = JSON.parse($("options").value || "{}"); } catch (error) { showError(`Options: not valid JSON (${error.message})`); return; }
  const seatValue = $("seat").value;
  const seed = $("seed").value.trim();
  clearTimeout(botTimer);
  // a bot may be thinking about the game being left: call it off at once (the server answers in order)
  if (current && current.type === "state" && !current.over && current.waiting_for === "bot") send({ type: "abandon" });
  current = null;
  paused = false;
  $("pause").textContent = "Pause";
  send({
    type: "new",
    env: $("env").value,
    options: options,
    seat: seatValue === "random" || seatValue === "watch" ? seatValue : Number(seatValue),
    view: $("view").value,
    agents: $("agents").value.trim().split(/\s+/).filter((s) => s !== ""),
    seed: seed === "" ? null : Number(seed),
  });
}

// ------------------------------------------------------------------ replays
function openRecord() {
  const file = $("record-file").files[0];
  if (!file) { showError("Choose a game record file first."); return; }
  file.text().then((text) => {
    current = null;
    $("events").innerHTML = "";
    send({ type: "open_record", record: text, view: $("record-view").value.trim() || "spectator" });
  });
}

function showReplay(message) {
  current = message;
  clearTimeout(botTimer);
  $("replay-controls").hidden = false;
  $("position").max = message.moves;
  $("position").value = message.position;
  $("position-label").textContent = `move ${message.position} / ${message.moves}`;
  drawTable(message, new Set());
  $("status").textContent = `Replay of ${message.env} (view: ${message.view || "spectator"}). ` +
    (message.move || "The deal.");
  showResult(message);
  if (replayTimer !== null && message.position >= message.moves) stopReplay();
}

function seek(position) {
  if (!current || current.type !== "replay") return;
  send({ type: "seek", position: Math.max(0, Math.min(current.moves, position)) });
}

function stopReplay() {
  clearInterval(replayTimer);
  replayTimer = null;
  $("autoplay").textContent = "Play";
}

// ------------------------------------------------------------------ start up
function init() {
  $("table").addEventListener("click", clickTable);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { selection = null; clearMarks(); $("chooser").hidden = true; }
  });
  $("env").onchange = fillEnv;
  $("preset").onchange = fillPreset;
  $("seat").onchange = () => { $("view-label").hidden = $("seat").value !== "watch"; };
  $("start").onclick = start;
  $("speed").oninput = () => { $("speed-value").textContent = `${$("speed").value} ms`; };
  $("pause").onclick = () => {
    paused = !paused;
    $("pause").textContent = paused ? "Resume" : "Pause";
    scheduleBot();
  };
  $("open-record").onclick = openRecord;
  $("first").onclick = () => seek(0);
  $("prev").onclick = () => seek(current.position - 1);
  $("next").onclick = () => seek(current.position + 1);
  $("last").onclick = () => seek(current.moves);
  $("position").onchange = () => seek(Number($("position").value));
  $("autoplay").onclick = () => {
    if (replayTimer !== null) { stopReplay(); return; }
    $("autoplay").textContent = "Stop";
    replayTimer = setInterval(() => seek(current.position + 1), Math.max(50, Number($("speed").value)));
  };
  fetch("/api/envs").then((r) => r.json()).then((data) => {
    envs = data.envs;
    for (const env of envs) $("env").add(new Option(env.name, env.name));
    for (const [kind, help] of Object.entries(data.agent_kinds)) {
      const option = document.createElement("option");
      option.value = kind;
      option.label = help;
      $("agent-kinds").appendChild(option);
    }
    fillEnv();
    document.body.dataset.ready = "true";
  });
  connect();
}

init();
