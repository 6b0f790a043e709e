// The planner page: reads the inputs, asks the local API (GET /api/<command>?<options>, the answers of privamp's
// command line) and shows the certified interval, the calibrated sigma, the statement in words, the plot of every
// sampling scheme, and the command lines and Python that reproduce them. Inputs are kept in the URL's hash.
"use strict";

const FIELDS = ["dataset-size", "batch-size", "sample-rate", "sampling", "epochs", "steps", "sigma", "target-epsilon",
  "delta", "neighboring", "group-size"];
const MODES = ["batch-mode", "length-mode", "noise-mode"];
// The schemes of the plot: those the epsilon command accounts step by step (shuffle and balls-in-bins are accounted
// by the statement only, per epoch).
const PLOTTED = [
  { name: "poisson", label: "Poisson", color: "#1f5fbf" },
  { name: "without-replacement", label: "without replacement", color: "#d1731a" },
  { name: "with-replacement", label: "with replacement", color: "#2f9e44" },
  { name: "none", label: "none (full batch)", color: "#8a3ffc" },
];
const POINTS = 6;          // plot points per scheme
const PLOT_IN_FLIGHT = 2;  // plot requests at once (the server runs one computation per core)
const DEBOUNCE_MS = 350;
const $ = id => document.getElementById(id);

let controller = null;     // aborts every request of the current inputs
let pending = 0;
let started = 0;
let timer = null;
let updates = 0;           // answered input states, in document.body.dataset.updated (for scripts driving the page)
let debounce = null;       // the update scheduled by the last keystroke, until it starts

// ---------------------------------------------------------------------------------------------- inputs and URL

function readState() {
  const state = {};
  for (const f of FIELDS) state[f] = $(f).value.trim();
  for (const m of MODES) state[m] = document.querySelector(`input[name="${m}"]:checked`).value;
  return state;
}

function writeState(state) {
  for (const f of FIELDS) if (state[f] !== undefined) $(f).value = state[f];
  for (const m of MODES) {
    const radio = document.querySelector(`input[name="${m}"][value="${state[m]}"]`);
    if (radio) radio.checked = true;
  }
}

function stateFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const state = {};
  for (const [k, v] of params) if (FIELDS.includes(k) || MODES.includes(k)) state[k] = v;
  return state;
}

function shareUrl(state) {
  const params = new URLSearchParams();
  for (const k of [...MODES, ...FIELDS]) params.set(k, state[k]);
  return `${location.origin}${location.pathname}#${params}`;
}

// Which fields the current modes use: the others are hidden (a mode's alternative) or greyed (unused by the scheme).
function showModes(state) {
  for (const div of document.querySelectorAll(".field[data-mode]")) {
    const [mode, value] = div.dataset.mode.split(":");
    div.classList.toggle("hidden", state[mode] !== value);
  }
  const full = state.sampling === "none";
  for (const f of ["dataset-size", "batch-size", "sample-rate"]) {
    document.querySelector(`.field[data-field="${f}"]`).classList.toggle("unused", full);
  }
}

// The options of a command for the inputs, as the API (and the command line) name them.
function options(state, scheme, sigma) {
  const p = {};
  if (sigma !== undefined) p.sigma = sigma;
  p.sampling = scheme;
  if (scheme !== "none") {
    const batch = state["batch-mode"];
    if (state[batch] !== "") p[batch] = state[batch];
    if (state["dataset-size"] !== "") p["dataset-size"] = state["dataset-size"];
  }
  const length = state["length-mode"];
  if (state[length] !== "") p[length] = state[length];
  if (state.delta !== "") p.delta = state.delta;
  if (state.neighboring !== "add-remove") p.neighboring = state.neighboring;
  if (state["group-size"] !== "" && state["group-size"] !== "1") p["group-size"] = state["group-size"];
  return p;
}

// ------------------------------------------------------------------------------------------------- requests

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

function busy(change) {
  pending += change;
  if (pending > 0 && !timer) {
    started = performance.now();
    timer = setInterval(showBusy, 200);
  }
  showBusy();
}

function showBusy() {
  const on = pending > 0;
  $("status").classList.toggle("busy", on);
  $("stop").hidden = !on;
  if (on) {
    const s = ((performance.now() - started) / 1000).toFixed(1);
    $("status-text").textContent = `computing: ${pending} request${pending > 1 ? "s" : ""} pending (${s} s)`;
  } else {
    clearInterval(timer);
    timer = null;
    $("status-text").textContent = controller && controller.signal.aborted ? "stopped" : "up to date";
  }
}

// GET /api/<command>?<params>: the command line's JSON, or an ApiError with its one-line message. A busy server
// (503) is asked again after the wait it names.
async function api(command, params, signal) {
  busy(+1);
  try {
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(`api/${command}?${new URLSearchParams(params)}`, { signal });
      const body = await response.json();
      if (response.ok) return body;
      if (response.status === 503 && attempt < 5) {
        const wait = Number(response.headers.get("Retry-After") || 2) * 1000;
        await new Promise((resolve, reject) => {
          const t = setTimeout(resolve, wait);
          signal.addEventListener("abort", () => { clearTimeout(t); reject(new DOMException("", "AbortError")); });
        });
        continue;
      }
      throw new ApiError(response.status, body.error || `HTTP ${response.status}`);
    }
  } finally {
    busy(-1);
  }
}

// ---------------------------------------------------------------------------------------------------- display

function clearErrors() {
  for (const e of document.querySelectorAll(".error")) e.textContent = "";
  for (const f of document.querySelectorAll(".field.invalid")) f.classList.remove("invalid");
}

// An API error beside the field whose option it names (the first visible one), or under the results.
function showError(err) {
  const aliases = { "noise-multiplier": "sigma" };
  for (const m of err.message.matchAll(/--([a-z][a-z-]*)/g)) {
    const name = aliases[m[1]] || m[1];
    const field = document.querySelector(`.field[data-field="${name}"]`);
    if (field && !field.classList.contains("hidden")) {
      field.classList.add("invalid");
      $(`error-${name}`).textContent = err.message;
      return;
    }
  }
  $("error-general").textContent = err.message;
}

const num = v => (typeof v === "number" ? Number(v.toPrecision(6)).toString() : v === "inf" ? "∞" : "–");

function clearAnswer() {
  for (const id of ["lower", "upper", "calibrated"]) { $(id).textContent = "–"; delete $(id).dataset.value; }
  $("route").textContent = "";
  $("notes").replaceChildren();
  $("statement").textContent = "–";
}

function showStatement(st) {
  $("interval-delta").textContent = st.delta;
  $("upper").textContent = num(st.epsilon);
  $("upper").dataset.value = String(st.epsilon);
  $("lower").textContent = st.lower_epsilon === null ? "no lower bound known" : num(st.lower_epsilon);
  $("lower").dataset.value = String(st.lower_epsilon);
  $("route").textContent = `upper bound: ${st.route} route (${st.bound}), ${st.steps} steps`;
  const notes = [...(st.warnings || []).map(w => ["warning", w]), ...(st.skipped || []).map(s => ["skipped", s])];
  $("notes").replaceChildren(...notes.map(([kind, text]) => {
    const li = document.createElement("li");
    li.textContent = `${kind === "warning" ? "warning" : "not used"}: ${text}`;
    if (/estimated .* CPU s|not computed/.test(text)) li.className = "cost";
    return li;
  }));
  $("statement").textContent = st.text;
}

function showReproduction(lines, state) {
  $("cli").textContent = lines.join("\n");
  $("python").textContent = PlannerSnippets.python(state);
  const url = shareUrl(state);
  $("share").href = url;
  $("share").textContent = url;
  history.replaceState(null, "", url);
}

// ------------------------------------------------------------------------------------------------------ plot

function lengthGrid(state) {
  const mode = state["length-mode"], total = Number(state[mode]);
  if (!(total > 0) || !Number.isFinite(total)) return [];
  const grid = [];
  for (let i = 1; i <= POINTS; i++) {
    const x = mode === "steps" ? Math.max(1, Math.round((total * i) / POINTS)) : Number(((total * i) / POINTS).toPrecision(6));
    if (!grid.includes(x)) grid.push(x);
  }
  return grid;
}

async function drawPlot(state, sigma, signal) {
  const grid = lengthGrid(state);
  const mode = state["length-mode"];
  const series = PLOTTED.map(s => ({ ...s, chosen: s.name === state.sampling, points: [], note: "" }));
  const redraw = () => PlannerPlot.draw($("plot"), series, mode === "steps" ? "steps" : "epochs");
  redraw();
  const jobs = series.flatMap(s => grid.map(x => ({ s, x })));
  const failed = new Set();
  const worker = async () => {
    for (let job = jobs.shift(); job; job = jobs.shift()) {
      if (failed.has(job.s)) continue;
      const p = { ...options(state, job.s.name, sigma), [mode]: String(job.x) };
      try {
        const r = await api("epsilon", p, signal);
        job.s.points.push({ x: job.x, upper: r.epsilon, lower: r.lower_epsilon });
      } catch (err) {
        if (err.name === "AbortError") return;
        failed.add(job.s);
        job.s.note = err.status === 400 ? "not available here" : `no answer (${err.status})`;
        const li = document.createElement("li");
        li.textContent = `${job.s.label}: ${err.message}`;
        $("plot-notes").appendChild(li);
      }
      redraw();
    }
  };
  await Promise.all(Array.from({ length: PLOT_IN_FLIGHT }, worker));
  $("plot").dataset.complete = signal.aborted ? "" : "true";
}

// ---------------------------------------------------------------------------------------------------- update

async function update() {
  clearTimeout(debounce);
  debounce = null;
  document.body.dataset.state = "busy";
  if (controller) controller.abort();
  controller = new AbortController();
  const signal = controller.signal;
  const state = readState();
  showModes(state);
  clearErrors();
  $("plot-notes").replaceChildren();
  delete $("plot").dataset.complete;
  const target = state["noise-mode"] === "target-epsilon";
  $("calibrated-card").hidden = !target;
  const lines = [];
  try {
    let sigma = state.sigma;
    if (target) {
      const p = { ...options(state, state.sampling), "target-epsilon": state["target-epsilon"] };
      lines.push(PlannerSnippets.cliLine("calibrate", p));
      showReproduction(lines, state);
      $("calibrated").textContent = "…";
      const cal = await api("calibrate", p, signal);
      sigma = String(cal.sigma);
      $("calibrated").textContent = `σ = ${num(cal.sigma)}`;
      $("calibrated").dataset.value = sigma;
      $("calibrated-note").textContent =
        `the smallest noise multiplier certified to give ε ≤ ${state["target-epsilon"]} (ε = ${num(cal.epsilon)})`;
    }
    const p = options(state, state.sampling, sigma);
    lines.push(PlannerSnippets.cliLine("statement", p));
    showReproduction(lines, state);
    const st = await api("statement", p, signal);
    showStatement(st);
    await drawPlot(state, sigma, signal);
  } catch (err) {
    if (err.name === "AbortError") return;
    clearAnswer();
    showError(err);
    PlannerPlot.draw($("plot"), [], state["length-mode"], "no plot: see the message beside the inputs");
  }
  if (signal.aborted) return;
  document.body.dataset.updated = String(++updates);
  // "done": the page shows the answer to the inputs as they are (no keystroke waiting for its update)
  if (debounce === null) document.body.dataset.state = "done";
}

function scheduled() {
  document.body.dataset.state = "busy";
  clearTimeout(debounce);
  debounce = setTimeout(update, DEBOUNCE_MS);
}

document.addEventListener("DOMContentLoaded", () => {
  writeState(stateFromHash());
  $("inputs").addEventListener("input", scheduled);
  $("inputs").addEventListener("change", scheduled);
  $("inputs").addEventListener("submit", e => { e.preventDefault(); update(); });
  $("stop").addEventListener("click", () => { if (controller) controller.abort(); });
  update();
});
