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
let dataFiles = [];        // the data files the server offers (file options name one of them)
let maxMessageBytes = Infinity;  // the largest message the server takes (UTF-8 bytes of its JSON)
let fileChoices = {};      // env name -> file option -> the offered files that option loads
let uncheckedFiles = {};   // env name -> file option -> the offered files the server has not tried for it yet
let fileFits = {};         // env name -> pairs of file options whose files must suit each other (markFits)
let agentsEdited = false;  // the person typed the other players: no more suggestions
let pending = null;        // "new" or "open_record" while the server has not yet answered the game or record asked for

// ------------------------------------------------------------------ connection
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.onopen = () => {
    $("connection").textContent = "connected";
    const ticket = new URLSearchParams(location.hash.slice(1)).get("seat");
    if (ticket) send({ type: "join", ticket: ticket });
  };
  socket.onclose = (event) => lostConnection(event.code === 1009 ?
    "The server closed the connection: a message was larger than it takes; reload the page." : LOST);
  socket.onmessage = (event) => receive(JSON.parse(event.data));
}

// The server went away (stopped, restarted, or the network dropped): say so where the person looks, and take the
// highlighted moves off the table (nothing can be played any more).
const LOST = "Lost the connection to the server; reload the page.";
let disconnected = false;
function lostConnection(why = LOST) {
  disconnected = true;
  $("connection").textContent = "disconnected (reload the page)";
  clearTimeout(botTimer);
  if (replayTimer !== null) stopReplay();
  selection = null;
  $("chooser").hidden = true;
  const table = $("table");
  table.dataset.waitingFor = "";
  table.dataset.legal = "";
  for (const shape of table.querySelectorAll("[data-actions]")) unmark(shape);
  clearMarks();
  $("status").textContent = why;
  document.body.dataset.connection = "lost";
  showError(why);
}

// A message to the server (or its text, from encoded); refused (in words, false) when the socket is not open.
function send(message) {
  if (disconnected || !socket || socket.readyState !== WebSocket.OPEN) {
    showError(disconnected ? LOST : "Not connected to the server yet; wait a moment or reload the page.");
    return false;
  }
  const text = typeof message === "string" ? message : encoded(message);
  if (text === null) return false;
  socket.send(text);
  return true;
}

// The message as sent, or null (said in words) when it is larger than the server takes: the server would close
// the connection, so nothing is sent.
function encoded(message) {
  message.seen = eventCount;
  const text = JSON.stringify(message);
  const size = new TextEncoder().encode(text).length;
  if (size <= maxMessageBytes) return text;
  showError(`That request is ${size.toLocaleString("en")} bytes; the server takes at most ` +
    `${maxMessageBytes.toLocaleString("en")}` + (message.type === "open_record" ?
    " (replay a record this large in the terminal: kakurega replay FILE)." : "."));
  return null;
}

// The error banner floats over the page (it never moves the table); a click or the next answer dismisses it.
function showError(text) {
  const box = $("error");
  box.textContent = text;
  box.hidden = !text;
}

function receive(message) {
  if (message.type === "error" && pending !== null) {
    // the answers to requests sent before the new game was asked for (a bot's move called off) are not news
    if (message.request !== pending) return;
    pending = null;
    const what = message.request === "new" ? "The new game was refused" : "The record was not opened";
    const open = current && !(current.type === "state" && current.over) ?
      ` The ${current.type === "replay" ? "record" : "game"} you had open goes on.` : "";
    const words = /[.!?)]$/.test(message.message) ? message.message : `${message.message}.`;
    showError(`${what}: ${words}${open}`);
    scheduleBot();
    return;
  }
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
  const scroll = [table.scrollLeft, table.scrollTop];  // a zoomed-in table stays where the person panned it
  const focused = document.activeElement;
  const refocus = keyboardAt !== null && (!focused || focused === document.body || table.contains(focused) ||
    $("chooser").contains(focused));
  table.innerHTML = message.svg;
  table.dataset.waitingFor = message.waiting_for || "";
  table.dataset.over = message.over ? "true" : "false";
  table.dataset.legal = [...legal].join(",");
  for (const shape of table.querySelectorAll("[data-actions]")) {
    if (actionsOf(shape).some((a) => legal.has(a))) mark(shape);
  }
  $("text").textContent = message.text;
  fitTable(scroll);
  if (refocus) focusTable();
}

// A legal shape is a button for the keyboard and for screen readers: Tab reaches it, Enter or Space plays it
// (as a click does), its name is its <title>.
function mark(shape) {
  shape.classList.add("legal");
  shape.setAttribute("tabindex", "0");
  shape.setAttribute("role", "button");
  const title = shape.querySelector(":scope > title");
  shape.setAttribute("aria-label", title ? title.textContent : (shape.textContent.trim() || "a move"));
}

function unmark(shape) {
  shape.classList.remove("legal");
  for (const name of ["tabindex", "role", "aria-label"]) shape.removeAttribute(name);
}

// ------------------------------------------------------------------ fitting the table to the screen
// On a wide screen the whole table fits the window below the status line (the picture keeps its proportions
// inside that box); the column beside it (result, moves) is as tall. On a phone (narrow, or short in landscape)
// the picture would be too small to tap and to read: it is drawn zoomed in, at the smallest scale that makes every
// shape that stands for a move at least TARGET px and the table's text about READABLE px, inside its own box that
// the person pans (the page itself never scrolls sideways). The Zoom button switches between the two.
const TARGET = 40, READABLE = 10, MOST_ZOOM = 1.6;
const PHONE = window.matchMedia("(max-width: 899px), (max-height: 500px)");
let zoomChoice = null;     // null: the screen decides (a phone: zoomed in); true or false: the person's choice
let zoomScale = 0;         // the zoomed-in scale of the open game (only grows, so that the table does not jump)

function roomBelow(element) {
  const top = element.getBoundingClientRect().top + window.scrollY;
  return Math.max(160, window.innerHeight - top - 8);
}

// The scale (CSS px per picture unit) that makes the smallest move shape TARGET px and the median text READABLE px.
function neededScale(svg, view) {
  const now = svg.getBoundingClientRect();
  const drawn = Math.min(now.width / view.width, now.height / view.height);
  if (!(drawn > 0)) return 1;
  let smallest = Infinity;
  for (const shape of svg.querySelectorAll("[data-actions]")) {
    const box = shape.getBoundingClientRect();
    const side = Math.min(box.width, box.height) / drawn;
    if (side > 0) smallest = Math.min(smallest, side);
  }
  const fonts = [...svg.querySelectorAll("text")].map((t) => parseFloat(getComputedStyle(t).fontSize))
    .filter((size) => size > 0).sort((a, b) => a - b);
  const font = fonts.length ? fonts[Math.floor(fonts.length / 2)] : READABLE;
  return Math.min(MOST_ZOOM, Math.max(smallest === Infinity ? 0 : TARGET / smallest, READABLE / font));
}

function fitTable(scroll) {
  const table = $("table");
  const svg = table.querySelector("svg");
  if (!scroll) scroll = [table.scrollLeft, table.scrollTop];
  let room = roomBelow($("board"));
  $("side").style.maxHeight = window.matchMedia("(min-width: 900px)").matches ? `${room}px` : "";
  if (!svg) return;
  const view = svg.viewBox.baseVal;
  if (!view || !view.width || !view.height) { svg.style.maxHeight = `${room}px`; return; }
  // the whole table: as wide as the column, no taller than the room below the status line
  svg.style.width = svg.style.height = "";
  svg.style.maxHeight = `${room}px`;
  table.style.maxHeight = "";
  const box = table.clientWidth || table.getBoundingClientRect().width;
  const fit = Math.min(box / view.width, room / view.height);
  zoomScale = Math.max(zoomScale, neededScale(svg, view));
  const zoomable = zoomScale > fit * 1.05;
  $("zoom").hidden = !zoomable;
  const zoomed = zoomable && (zoomChoice === null ? PHONE.matches : zoomChoice);
  table.dataset.zoom = zoomed ? "in" : "fit";
  $("zoom").textContent = zoomed ? "Whole table" : "Zoom in";
  $("zoom").setAttribute("aria-pressed", zoomed ? "true" : "false");
  room = roomBelow($("board"));  // (the Zoom button, shown, may have made the status line taller)
  $("side").style.maxHeight = window.matchMedia("(min-width: 900px)").matches ? `${room}px` : "";
  svg.style.maxHeight = `${room}px`;
  if (!zoomed) return;
  // zoomed in: the picture at its scale, in a box that takes the room below the status line and scrolls both ways
  svg.style.maxHeight = "none";
  svg.style.width = `${Math.round(view.width * zoomScale)}px`;
  svg.style.height = `${Math.round(view.height * zoomScale)}px`;
  table.style.maxHeight = `${room}px`;
  [table.scrollLeft, table.scrollTop] = scroll;
  showMoves();
}

// On the person's turn a zoomed-in table shows a legal shape (the first) when none is in sight.
function showMoves() {
  const table = $("table");
  if (table.dataset.zoom !== "in" || table.dataset.waitingFor !== "you") return;
  const legal = [...table.querySelectorAll(".legal")];
  const box = table.getBoundingClientRect();  // its part inside the window
  const sight = { left: Math.max(box.left, 0), top: Math.max(box.top, 0),
    right: Math.min(box.right, window.innerWidth), bottom: Math.min(box.bottom, window.innerHeight) };
  const seen = (shape) => {
    const b = shape.getBoundingClientRect();
    return b.left >= sight.left - 1 && b.right <= sight.right + 1 && b.top >= sight.top - 1 && b.bottom <= sight.bottom + 1;
  };
  if (legal.length && !legal.some(seen)) panTo(legal[0]);
}

// Scroll the table's own box (not the page) so that the shape is in its middle.
function panTo(shape) {
  const table = $("table");
  const sight = table.getBoundingClientRect(), b = shape.getBoundingClientRect();
  table.scrollLeft += (b.left + b.right) / 2 - (sight.left + sight.right) / 2;
  table.scrollTop += (b.top + b.bottom) / 2 - (sight.top + sight.bottom) / 2;
}

function toggleZoom() {
  const table = $("table");
  zoomChoice = table.dataset.zoom !== "in";
  const focused = document.activeElement;
  fitTable([table.scrollLeft, table.scrollTop]);
  if (table.dataset.zoom === "in" && table.contains(focused) && focused.classList.contains("legal")) panTo(focused);
}

// The result in words (who won and why; a tie said as a tie), and between rounds the round that just ended.
function showResult(message) {
  const box = $("result");
  const rounds = message.rounds || [];
  box.innerHTML = "";
  if (!message.over) {
    box.hidden = rounds.length === 0;
    box.className = "between-rounds";
    if (rounds.length > 0) addLine(box, rounds[rounds.length - 1], "headline");
    return;
  }
  const result = message.result;
  box.hidden = false;
  box.className = "final";
  box.dataset.returns = JSON.stringify(result.returns);
  box.dataset.end = result.end;
  result.words.forEach((line, index) => addLine(box, line, index === 0 ? "headline" : ""));
  if (message.record) addLine(box, `Record saved: ${message.record}`, "record");
  box.scrollIntoView({ block: "nearest" });  // a narrow screen has it under the table
}

function addLine(box, text, className) {
  const line = document.createElement("div");
  line.textContent = text;
  if (className) line.className = className;
  box.appendChild(line);
}

function legalSet(message) {
  return new Set(message.waiting_for === "you" ? Object.keys(message.legal).map(Number) : []);
}

// ------------------------------------------------------------------ playing
function showState(message) {
  if (!current || current.game !== message.game) pending = null;  // the game asked for (a move of the old one: not yet)
  if (!current || current.game !== message.game || current.view !== message.view) {
    $("events").innerHTML = "";
    eventCount = 0;
    history.replaceState(null, "", `#seat=${message.ticket}`);
    document.body.dataset.playing = "true";  // the setup folds away (the New game button opens it again)
    zoomScale = 0;
    $("setup").open = false;
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
  const seats = Object.entries(message.seats).map(([a, s]) => `${a}: ${s}`).join(", ");
  let status;
  if (message.over) status = "Game over.";
  else if (message.waiting_for === "you") status = `Your turn (${message.you}): click a highlighted part of the table (or Tab to it, Enter).`;
  else if (message.waiting_for === "person") status = `${message.to_move} (a person) is to move...`;
  else status = `${message.to_move} is thinking...`;
  $("status").textContent = `${titleOf(message.env)} - ${seats}. ${status}`;
  drawTable(message, legalSet(message));  // (after the status line: the table fits the room below it)
  showResult(message);
  showInvites(message);
  showViews(message);
  scheduleBot();
}

// The host of a table with several people: a link for every other person's seat, to hand out.
function showInvites(message) {
  const box = $("invites");
  box.innerHTML = "";
  box.hidden = !message.invites || message.over;
  if (box.hidden) return;
  addLine(box, "Send each person the link of their seat (whoever holds a link plays that seat):", "");
  for (const [seat, ticket] of Object.entries(message.invites)) {
    const link = `${location.origin}${location.pathname}#seat=${ticket}`;
    const line = document.createElement("div");
    line.append(`${seat}: `);
    const input = document.createElement("input");
    input.readOnly = true;
    input.value = link;
    input.dataset.seat = seat;
    input.onfocus = () => input.select();
    line.appendChild(input);
    box.appendChild(line);
  }
}

// Another seat's view is offered once the game is over, or while bots play alone.
function showViews(message) {
  const label = $("watch-as-label");
  label.hidden = !(message.over || message.you === null);
  if (label.hidden) return;
  const select = $("watch-as");
  select.innerHTML = "";
  select.add(new Option("spectator", "spectator"));
  for (const agent of Object.keys(message.seats)) select.add(new Option(agent, agent));
  select.value = message.view || "spectator";
}

function scheduleBot() {
  clearTimeout(botTimer);
  if (!current || current.type !== "state" || current.over || paused || pending !== null) return;
  // a bot's move at the chosen pace; while another person is to move, a look at the table every second
  if (current.waiting_for === "bot") botTimer = setTimeout(() => send({ type: "next" }), Number($("speed").value));
  else if (current.waiting_for === "person") botTimer = setTimeout(() => send({ type: "look" }), 1000);
}

function play(action) {
  selection = null;
  $("chooser").hidden = true;
  send({ type: "act", action: action });
}

// A click stands for the legal actions of the clicked shape; one left: play it. Several: highlight the
// shapes that tell them apart and intersect again on the next click; when they are few, or no shape
// tells them apart, also list them by name. Enter or Space on a focused shape is the same click.
const CHOOSER_SIZE = 12;
function clickTable(event) {
  choose(event.target.closest("[data-actions]"), false);
}

function choose(shape, byKeyboard) {
  if (disconnected || !current || current.type !== "state" || current.waiting_for !== "you") return;
  const legal = legalSet(current);
  clearMarks();
  if (!shape) { selection = null; $("chooser").hidden = true; return; }
  chooserAt = shape;
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
  if (!narrows || selection.size <= CHOOSER_SIZE) {
    showChooser([...selection]);
    if (byKeyboard) $("chooser").querySelector("button").focus();  // Escape closes it and comes back here
  }
}

// ------------------------------------------------------------------ the keyboard
// Tab and Shift+Tab go through the legal shapes (in the picture's order), the arrows to the nearest legal shape
// that way, Enter or Space plays the focused one. After a move the focus comes back to the table when it is the
// person's turn again (keyboardAt: the name of the shape played last, or null once the person uses the mouse or
// another control).
let keyboardAt = null;

function tableKey(event) {
  const shape = event.target.closest && event.target.closest("[data-actions]");
  if (!shape || !$("table").contains(shape)) return;
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();  // (Space would scroll the page)
    if (event.repeat) return;
    // Enter plays on the key going down, Space on the key coming up (as a button does: the chooser that
    // Space may open then does not take the same key's release as a choice)
    if (event.type === (event.key === "Enter" ? "keydown" : "keyup")) {
      keyboardAt = shape.getAttribute("aria-label");
      choose(shape, true);
    }
    return;
  }
  if (event.type !== "keydown") return;
  const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
  if (!step) return;
  event.preventDefault();
  const next = nearest(shape, step);
  if (next) next.focus();
}

// The legal shape nearest to ``from`` in the direction ``step`` (by the centres of their boxes).
function nearest(from, [dx, dy]) {
  const centre = (e) => { const b = e.getBoundingClientRect(); return [(b.left + b.right) / 2, (b.top + b.bottom) / 2]; };
  const [x0, y0] = centre(from);
  let best = null, bestCost = Infinity;
  for (const shape of $("table").querySelectorAll(".legal")) {
    if (shape === from) continue;
    const [x, y] = centre(shape);
    const along = (x - x0) * dx + (y - y0) * dy;
    if (along <= 1) continue;
    const across = Math.abs((x - x0) * dy) + Math.abs((y - y0) * dx);
    const cost = along + 2 * across;
    if (cost < bestCost) { best = shape; bestCost = cost; }
  }
  return best;
}

// Back to the table after a redraw: the shape of the same name if it is still legal, else the first legal one;
// while nobody asks the person, the table box itself holds the focus (so Tab goes on from the table).
function focusTable() {
  const table = $("table");
  const legal = [...table.querySelectorAll(".legal")];
  const same = legal.find((shape) => shape.getAttribute("aria-label") === keyboardAt);
  const target = same || legal[0];
  if (target) {
    target.focus({ preventScroll: true });
    if (table.dataset.zoom === "in") panTo(target);
  } else table.focus({ preventScroll: true });
}

function clearMarks() {
  for (const shape of $("table").querySelectorAll(".candidate, .chosen")) shape.classList.remove("candidate", "chosen");
}

function showChooser(actions) {
  const box = $("chooser");
  box.innerHTML = "";
  const title = document.createElement("div");
  title.textContent = "Which one?";
  title.id = "chooser-title";
  box.appendChild(title);
  for (const action of actions) {
    const button = document.createElement("button");
    button.textContent = current.legal[String(action)];
    button.dataset.action = action;
    button.onclick = () => play(action);
    box.appendChild(button);
  }
  box.hidden = false;
  placeChooser(box);
}

// In the chooser the arrows (and Home, End) go from one move to the next; Escape closes it (see init).
function chooserKey(event) {
  const buttons = [...$("chooser").querySelectorAll("button")];
  const at = buttons.indexOf(document.activeElement);
  const to = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 }[event.key];
  if (to === undefined || buttons.length === 0) return;
  event.preventDefault();
  buttons[(to + buttons.length) % buttons.length].focus();
}

// The chooser floats by the clicked shape, inside the window (below it, or above when there is no room).
let chooserAt = null;      // the shape clicked last
function placeChooser(box) {
  if (!chooserAt || box.hidden) return;
  const at = chooserAt.getBoundingClientRect();
  const margin = 8;
  const width = box.offsetWidth, height = box.offsetHeight;
  const left = Math.min(Math.max(margin, at.left), window.innerWidth - width - margin);
  let top = at.bottom + margin;
  if (top + height > window.innerHeight - margin) top = Math.max(margin, at.top - height - margin);
  box.style.left = `${Math.max(margin, left)}px`;
  box.style.top = `${top}px`;
}

// ------------------------------------------------------------------ setup form
function selectedEnv() {
  return envs.find((e) => e.name === $("env").value);
}

function titleOf(name) {
  const env = envs.find((e) => e.name === name);
  return env ? env.label : name;
}

// The game list: the newest version of every game by its name; older versions behind the switch.
function fillEnvList() {
  const chosen = $("env").value;
  $("env").innerHTML = "";
  for (const env of envs) {
    if (env.latest || $("older").checked) $("env").add(new Option(env.label, env.name));
  }
  if ([...$("env").options].some((o) => o.value === chosen)) $("env").value = chosen;
  fillEnv();
}

function fillEnv() {
  const env = selectedEnv();
  $("summary").textContent = env.summary;
  $("preset").innerHTML = "";
  env.configurations.forEach((config, index) => {
    const text = Object.entries(config.options).map(([k, v]) => `${k}=${v}`).join(", ") || "defaults";
    $("preset").add(new Option(`${text} (${config.agents.length} seat${config.agents.length > 1 ? "s" : ""})`, index));
  });
  fillFields(env);
  agentsEdited = false;
  fillPreset();
}

// One form field per declared option: a select for choices (and data files), a number with its bounds, a checkbox.
function fillFields(env) {
  const box = $("options");
  box.querySelectorAll("label").forEach((label) => label.remove());
  box.hidden = env.fields.length === 0;
  for (const field of env.fields) {
    const label = document.createElement("label");
    label.title = field.doc;
    let input;
    if (field.type === "select" || field.type === "file") {
      input = document.createElement("select");
      fillChoices(input, env, field);
    } else {
      input = document.createElement("input");
      if (field.type === "checkbox") input.type = "checkbox";
      else {
        input.type = "number";
        input.step = field.integer ? "1" : "any";
        if (field.min !== null) input.min = field.min;
        if (field.max !== null) input.max = field.max;
      }
    }
    input.dataset.option = field.name;
    input.dataset.type = field.type;
    input.onchange = () => { markFits(); suggestOpponent(); };
    if (field.type === "checkbox") { label.appendChild(input); label.append(` ${field.name}`); }
    else { label.append(`${field.name} `); label.appendChild(input); }
    box.appendChild(label);
  }
}

// The choices of a select field; a file option's: the shipped file, the files its loader loads, and those the server
// had no time to try yet in a group of their own (the page asks again until none is left: refreshLists).
function fillChoices(input, env, field) {
  input.innerHTML = "";
  const choices = field.type === "select" ? field.choices : [null, ...filesFor(env, field)];
  for (const choice of choices) {
    input.add(new Option(choice === null ? "the shipped one" : String(choice), JSON.stringify(choice)));
  }
  const unchecked = field.type === "file" ? (uncheckedFiles[env.name] || {})[field.name] || [] : [];
  if (unchecked.length) {  // offered apart, as what they are
    const group = document.createElement("optgroup");
    group.label = "not checked yet (being checked: the list updates by itself)";
    for (const name of unchecked) group.appendChild(new Option(name, JSON.stringify(name)));
    input.appendChild(group);
  }
}

// The data file lists again from the server (each listing tries for about 2 s the files it has no answer for):
// asked when the setup is opened, and every few seconds while it is open and some files are not checked yet. The
// file fields keep the person's choice (where the file is still offered).
const LIST_AGAIN_MS = 3000;
let listTimer = null;
function takeLists(data) {
  dataFiles = data.data_files;
  fileChoices = data.file_choices ?? {};
  uncheckedFiles = data.unchecked_files ?? {};
  fileFits = data.file_fits ?? {};
}

function refreshLists() {
  clearTimeout(listTimer);
  listTimer = null;
  fetch("/api/envs").then((r) => r.json()).then((data) => {
    takeLists(data);
    const env = selectedEnv();
    for (const field of env ? env.fields : []) {
      if (field.type !== "file") continue;
      const input = $("options").querySelector(`[data-option="${field.name}"]`);
      const chosen = input.value;
      fillChoices(input, env, field);
      if ([...input.options].some((o) => o.value === chosen)) input.value = chosen;
    }
    markFits();
    listAgain();
  }).catch(() => listAgain());
}

function listAgain() {
  clearTimeout(listTimer);
  listTimer = Object.keys(uncheckedFiles).length && $("setup").open ? setTimeout(refreshLists, LIST_AGAIN_MS) : null;
}

// The data files a file option is offered: those its loader loads (a server that does not say: every one); those
// not tried yet come apart (uncheckedFiles).
function filesFor(env, field) {
  const files = (fileChoices[env.name] || {})[field.name];
  return Array.isArray(files) ? files : dataFiles;
}

// A file that does not fit the file chosen for another option (a deck with too few cards for the board): marked in
// words and not to be chosen, again whenever the other choice changes (fileFits: each file's size and each other
// file's needs, "" for the default; a file without a number, not checked yet, is not marked). A choice made before
// stays chosen, marked when it no longer fits (the server refuses that game in words).
function markFits() {
  const env = selectedEnv();
  for (const fit of (env && fileFits[env.name]) || []) {
    const input = $("options").querySelector(`[data-option="${fit.option}"]`);
    const other = $("options").querySelector(`[data-option="${fit.other}"]`);
    if (!input || !other || other.value === "") continue;
    const number = (numbers, value) => {
      const name = JSON.parse(value) ?? "";
      return Object.hasOwn(numbers, name) ? numbers[name] : undefined;
    };
    const needs = number(fit.needs, other.value);
    for (const option of input.querySelectorAll("option")) {
      option.dataset.label ??= option.textContent;
      const size = number(fit.size, option.value);
      const fits = needs === undefined || size === undefined || size >= needs;
      option.disabled = !fits;
      option.textContent = fits ? option.dataset.label : `${option.dataset.label} (${fit.words})`;
    }
  }
}

function setFields(options) {
  const env = selectedEnv();
  for (const field of env.fields) {
    const input = $("options").querySelector(`[data-option="${field.name}"]`);
    const value = field.name in options ? options[field.name] : field.default;
    if (field.type === "checkbox") input.checked = Boolean(value);
    else if (field.type === "number") input.value = value === null ? "" : value;
    else input.value = JSON.stringify(value);
  }
  markFits();
}

// The options as the fields say, only those that differ from the defaults (the server fills in the rest);
// a number field left empty or out of its bounds is refused in words.
function readOptions() {
  const options = {};
  for (const field of selectedEnv().fields) {
    const input = $("options").querySelector(`[data-option="${field.name}"]`);
    let value;
    if (field.type === "checkbox") value = input.checked;
    else if (field.type === "number") {
      if (input.value.trim() === "" || !input.checkValidity()) {
        throw new Error(`${field.name} must be ${field.describe}, got "${input.value}"`);
      }
      value = Number(input.value);
    } else value = JSON.parse(input.value);
    if (JSON.stringify(value) !== JSON.stringify(field.default)) options[field.name] = value;
  }
  return options;
}

function fillPreset() {
  const config = selectedEnv().configurations[Number($("preset").value)];
  setFields(config.options);
  $("seat").innerHTML = "";
  $("seat").add(new Option("random", "random"));
  config.agents.forEach((agent, seat) => $("seat").add(new Option(agent, seat)));
  $("seat").add(new Option("none: watch the bots", "watch"));
  $("view").innerHTML = "";
  $("view").add(new Option("spectator", "spectator"));
  for (const agent of config.agents) $("view").add(new Option(agent, agent));
  showSeedField();
  suggestOpponent();
}

// The shipped bot where one plays exactly these options (trained or served), else the heuristic (until the person types).
function suggestOpponent() {
  const env = selectedEnv();
  let options;
  try { options = { ...env.defaults, ...readOptions() }; } catch (error) { return; }
  const same = (bot) => Object.keys(bot).length === Object.keys(options).length &&
    Object.entries(bot).every(([k, v]) => JSON.stringify(options[k]) === JSON.stringify(v));
  const hasBot = env.bots.some(same);
  $("agents-note").textContent = hasBot ? "A shipped bot (pretrained) plays this game with these options."
    : "No shipped bot plays these options; heuristic is the rule-based player.";
  if (!agentsEdited) $("agents").value = hasBot ? "pretrained" : "heuristic";
}

function start() {
  let options;
  try { options = readOptions(); } catch (error) { showError(`Options: ${error.message}`); return; }
  const seatValue = $("seat").value;
  const seed = seatValue === "watch" && $("view").value === "spectator" ? $("seed").value.trim() : "";
  clearTimeout(botTimer);
  // the game open stays until the new one comes: the server refuses some (then it goes on); a bot thinking about
  // it stops at once (the server calls off that move when a request for another game arrives)
  paused = false;
  $("pause").textContent = "Pause";
  pending = "new";
  if (!send({
    type: "new",
    env: $("env").value,
    options: options,
    seat: seatValue === "random" || seatValue === "watch" ? seatValue : Number(seatValue),
    view: $("view").value,
    agents: $("agents").value.trim().split(/\s+/).filter((s) => s !== ""),
    seed: seed === "" ? null : Number(seed),
  })) { pending = null; scheduleBot(); }
}

// A seed may be chosen only to watch bots as the spectator (the server draws every other deal).
function showSeedField() {
  const watching = $("seat").value === "watch";
  $("view-label").hidden = !watching;
  $("seed-label").hidden = !(watching && $("view").value === "spectator");
}

// ------------------------------------------------------------------ rules
// The players' page of the chosen game (Markdown: headings, paragraphs, lists, `code` and **bold**), built as
// elements with text content only.
function showRules() {
  const name = current && current.env ? current.env : $("env").value;
  fetch(`/api/rules/${encodeURIComponent(name)}`).then((r) => r.json()).then((data) => {
    if (data.error) { showError(data.error); return; }
    const box = $("rules-text");
    box.innerHTML = "";
    box.appendChild(renderMarkdown(data.text));
    $("rules").dataset.game = data.game;
    $("rules").showModal();
  }).catch(() => showError("Could not load the rules from the server (it may have stopped); try again, or reload the page."));
}

function inline(parent, text) {
  for (const part of text.split(/(`[^`]+`|\*\*[^*]+\*\*)/)) {
    if (part.length > 2 && part.startsWith("`") && part.endsWith("`")) {
      const code = document.createElement("code");
      code.textContent = part.slice(1, -1);
      parent.appendChild(code);
    } else if (part.length > 4 && part.startsWith("**") && part.endsWith("**")) {
      const strong = document.createElement("strong");
      strong.textContent = part.slice(2, -2);
      parent.appendChild(strong);
    } else if (part) parent.appendChild(document.createTextNode(part));
  }
}

function renderMarkdown(markdown) {
  const root = document.createElement("div");
  let open = null;   // the paragraph or list item whose lines are being gathered: {holder, text}
  let lists = [];    // open lists, innermost last: {indent, element}
  const close = () => { if (open) { inline(open.holder, open.text.trim()); open = null; } };
  for (const line of markdown.split("\n")) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const item = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (line.trim() === "") { close(); lists = []; continue; }
    if (heading) {
      close();
      lists = [];
      const element = document.createElement(`h${heading[1].length + 1}`);
      inline(element, heading[2]);
      root.appendChild(element);
    } else if (item) {
      close();
      const indent = item[1].length;
      while (lists.length && lists[lists.length - 1].indent > indent) lists.pop();
      let list = lists[lists.length - 1];
      if (!list || list.indent < indent) {
        const element = document.createElement(/\d/.test(item[2]) ? "ol" : "ul");
        (list ? list.element.lastElementChild : root).appendChild(element);
        list = { indent, element };
        lists.push(list);
      }
      const li = document.createElement("li");
      const holder = document.createElement("span");
      li.appendChild(holder);
      list.element.appendChild(li);
      open = { holder, text: item[3] };
    } else if (open) open.text += " " + line.trim();
    else {
      const paragraph = document.createElement("p");
      root.appendChild(paragraph);
      open = { holder: paragraph, text: line };
    }
  }
  close();
  return root;
}

// ------------------------------------------------------------------ replays
function openRecord() {
  const file = $("record-file").files[0];
  if (!file) { showError("Choose a game record file first."); return; }
  file.text().then((text) => {
    const message = { type: "open_record", record: text, view: $("record-view").value.trim() || "spectator" };
    const encodedMessage = encoded(message);  // once: a record may be megabytes
    if (encodedMessage === null) return;  // too large: the table on the page stays as it was
    clearTimeout(botTimer);  // the game open stays until the record comes (it may be refused)
    pending = "open_record";
    if (!send(encodedMessage)) { pending = null; scheduleBot(); }
  });
}

function showReplay(message) {
  if (!current || current.game !== message.game) {
    $("setup").open = false;  // the record folds the setup away
    $("events").innerHTML = "";  // (the moves of the game it replaces)
    eventCount = 0;
    pending = null;
    zoomScale = 0;
  }
  current = message;
  clearTimeout(botTimer);
  $("replay-controls").hidden = false;
  $("position").max = message.moves;
  $("position").value = message.position;
  $("position-label").textContent = `move ${message.position} / ${message.moves}`;
  $("status").textContent = `Replay of ${titleOf(message.env)} (view: ${message.view || "spectator"}). ` +
    (message.position ? message.move : ["The deal.", message.move].filter(Boolean).join(" "));
  drawTable(message, new Set());
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
  window.addEventListener("resize", () => { fitTable(); placeChooser($("chooser")); });
  window.addEventListener("scroll", () => placeChooser($("chooser")));  // it stays by its shape
  $("table").addEventListener("scroll", () => placeChooser($("chooser")));  // (also when a zoomed table is panned)
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const fromChooser = $("chooser").contains(document.activeElement);
    selection = null;
    clearMarks();
    $("chooser").hidden = true;
    if (fromChooser && chooserAt && chooserAt.isConnected) chooserAt.focus();  // back to the shape it was opened from
  });
  $("table").addEventListener("keydown", tableKey);
  $("table").addEventListener("keyup", tableKey);
  $("chooser").addEventListener("keydown", chooserKey);
  // the mouse, or a control outside the table and its chooser: the focus is no longer brought back to the table
  document.addEventListener("pointerdown", () => { keyboardAt = null; });
  document.addEventListener("focusin", (event) => {
    if (!$("table").contains(event.target) && !$("chooser").contains(event.target)) keyboardAt = null;
  });
  $("zoom").onclick = toggleZoom;
  $("setup").addEventListener("toggle", () => { if ($("setup").open && envs.length) refreshLists(); });
  $("env").onchange = fillEnv;
  $("older").onchange = fillEnvList;
  $("agents").oninput = () => { agentsEdited = true; };
  $("rules-button").onclick = showRules;
  $("preset").onchange = fillPreset;
  $("seat").onchange = showSeedField;
  $("view").onchange = showSeedField;
  $("watch-as").onchange = () => send({ type: "view", view: $("watch-as").value });
  $("error").onclick = () => showError("");
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
    takeLists(data);
    maxMessageBytes = data.max_message_bytes ?? Infinity;
    for (const [kind, help] of Object.entries(data.agent_kinds)) {
      const option = document.createElement("option");
      option.value = kind;
      option.label = help;
      $("agent-kinds").appendChild(option);
    }
    fillEnvList();
    document.body.dataset.ready = "true";
    listAgain();
  }).catch(() => showError("Could not load the list of games from the server (it may have stopped); reload the page."));
  connect();
}

init();
