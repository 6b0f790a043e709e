// What reproduces the page's numbers: the command lines (the API's queries written as options) and a Python snippet
// using privamp.dpsgd (DpSgdConfig, calibrate, statement) with the same inputs.
"use strict";

const PlannerSnippets = (() => {
  function shellWord(v) {
    return /^[A-Za-z0-9._+:-]+$/.test(v) ? v : `'${String(v).replace(/'/g, "'\\''")}'`;
  }

  // The command line of an API request: /api/<command>?k=v&... is privamp <command> --k v ...
  function cliLine(command, params) {
    const words = Object.entries(params).map(([k, v]) => `--${k} ${shellWord(v)}`);
    return ["privamp", command, ...words].join(" ");
  }

  // A Python literal for a value typed in a field: numbers as typed when they are plain Python numbers, integers
  // written out, strings quoted.
  function number(text, integer) {
    const v = Number(text);
    if (text.trim() === "" || !Number.isFinite(v)) return JSON.stringify(text);
    if (integer && Number.isInteger(v)) return String(v);
    return /^[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/.test(text.trim()) ? text.trim() : String(v);
  }

  // state: the page's inputs (planner.js readState); sigma: the noise multiplier of the statement (typed, or
  // calibrated in target mode).
  function python(state) {
    const args = [];
    const target = state["noise-mode"] === "target-epsilon";
    if (!target) args.push(`noise_multiplier=${number(state.sigma, false)}`);
    args.push(`sampling=${JSON.stringify(state.sampling)}`);
    if (state.sampling !== "none") {
      if (state["batch-mode"] === "batch-size") args.push(`batch_size=${number(state["batch-size"], true)}`);
      else args.push(`sample_rate=${number(state["sample-rate"], false)}`);
      if (state["dataset-size"].trim() !== "") args.push(`dataset_size=${number(state["dataset-size"], true)}`);
    }
    if (state["length-mode"] === "epochs") args.push(`epochs=${number(state.epochs, false)}`);
    else args.push(`steps=${number(state.steps, true)}`);
    args.push(`neighboring=${JSON.stringify(state.neighboring)}`);
    if (state["group-size"].trim() !== "" && Number(state["group-size"]) !== 1) {
      args.push(`max_records_per_user=${number(state["group-size"], true)}`);
    }
    const delta = number(state.delta, false);
    const lines = [];
    if (target) lines.push("import dataclasses", "");
    lines.push("from privamp import dpsgd", "", "run = dpsgd.DpSgdConfig(");
    for (const a of args) lines.push(`    ${a},`);
    lines.push(")");
    if (target) {
      lines.push(
        `calibration = dpsgd.calibrate(run, "sigma", target_epsilon=${number(state["target-epsilon"], false)}, ` +
          `delta=${delta})`,
        "run = dataclasses.replace(run, noise_multiplier=calibration.sigma)",
        'print("sigma =", calibration.sigma)');
    }
    lines.push(
      `statement = dpsgd.statement(run, ${delta})`,
      "guarantee = statement.guarantee",
      'print(f"certified interval: [{guarantee.lower_epsilon}, {guarantee.epsilon}]")',
      "print(statement.text)");
    return lines.join("\n");
  }

  return { cliLine, python };
})();
