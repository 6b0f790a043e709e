// The planner's plot: epsilon against training length, one line per sampling scheme, drawn as SVG by hand (no
// plotting library: the page works offline and loads nothing from elsewhere). Upper bounds solid, lower dashed; the
// y axis is logarithmic (the schemes' epsilons differ by orders of magnitude).
"use strict";

const PlannerPlot = (() => {
  const SVG = "http://www.w3.org/2000/svg";
  const W = 640, H = 360, LEFT = 58, RIGHT = 188, TOP = 14, BOTTOM = 42;

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function text(parent, x, y, content, attrs = {}) {
    const node = el("text", { x, y, ...attrs }, parent);
    node.textContent = content;
    return node;
  }

  function niceStep(span) {
    const raw = span / 5, mag = 10 ** Math.floor(Math.log10(raw)), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  }

  function fmt(v) {
    return Number(v.toPrecision(3)).toString();
  }

  function yTicks(lo, hi) {
    const ticks = [];
    const multiples = hi - lo <= 1.2 ? [1, 2, 5] : [1];
    for (let d = Math.floor(lo); d <= Math.ceil(hi); d++) {
      for (const m of multiples) {
        const v = Math.log10(m * 10 ** d);
        if (v >= lo - 1e-9 && v <= hi + 1e-9) ticks.push(v);
      }
    }
    return ticks;
  }

  // series: [{name, label, color, chosen, points: [{x, upper, lower}], note}]; xLabel: the x axis' title; empty: the
  // text shown while there is no point.
  function draw(svg, series, xLabel, empty = "computing…") {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    const finite = v => typeof v === "number" && Number.isFinite(v) && v > 0;
    const points = series.flatMap(s => s.points);
    const ys = points.flatMap(p => [p.upper, p.lower]).filter(finite);
    const xmax = points.length ? Math.max(...points.map(p => p.x)) : 1;
    const plotW = W - LEFT - RIGHT, plotH = H - TOP - BOTTOM;
    let lo = ys.length ? Math.log10(Math.min(...ys)) : -1, hi = ys.length ? Math.log10(Math.max(...ys)) : 1;
    if (hi - lo < 0.3) { lo -= 0.15; hi += 0.15; }
    lo = Math.floor(lo * 10) / 10; hi = Math.ceil(hi * 10) / 10;
    const sx = x => LEFT + (x / xmax) * plotW;
    const sy = v => TOP + (1 - (Math.log10(v) - lo) / (hi - lo)) * plotH;
    const axes = el("g", {}, svg);
    for (const t of yTicks(lo, hi)) {
      const y = sy(10 ** t);
      el("line", { x1: LEFT, x2: LEFT + plotW, y1: y, y2: y, class: "grid" }, axes);
      text(axes, LEFT - 6, y + 4, fmt(10 ** t), { "text-anchor": "end" });
    }
    const step = niceStep(xmax);
    for (let x = 0; x <= xmax * (1 + 1e-9); x += step) {
      el("line", { x1: sx(x), x2: sx(x), y1: TOP + plotH, y2: TOP + plotH + 4, class: "axis" }, axes);
      text(axes, sx(x), TOP + plotH + 16, fmt(x), { "text-anchor": "middle" });
    }
    el("line", { x1: LEFT, x2: LEFT + plotW, y1: TOP + plotH, y2: TOP + plotH, class: "axis" }, axes);
    el("line", { x1: LEFT, x2: LEFT, y1: TOP, y2: TOP + plotH, class: "axis" }, axes);
    text(axes, LEFT + plotW / 2, H - 6, xLabel, { "text-anchor": "middle" });
    text(axes, 14, TOP + plotH / 2, "ε (log scale)", {
      "text-anchor": "middle", transform: `rotate(-90 14 ${TOP + plotH / 2})` });
    if (!ys.length) text(axes, LEFT + plotW / 2, TOP + plotH / 2, empty, { "text-anchor": "middle" });
    series.forEach((s, i) => {
      const g = el("g", { class: "series" + (s.chosen ? " chosen" : ""), "data-scheme": s.name }, svg);
      const sorted = [...s.points].sort((a, b) => a.x - b.x);
      for (const key of ["upper", "lower"]) {
        const pts = sorted.filter(p => finite(p[key]));
        if (pts.length) {
          const d = pts.map((p, j) => `${j ? "L" : "M"}${sx(p.x).toFixed(1)},${sy(p[key]).toFixed(1)}`).join(" ");
          el("path", { d, class: key, stroke: s.color }, g);
        }
      }
      for (const p of sorted.filter(p => finite(p.upper))) {
        el("circle", { cx: sx(p.x), cy: sy(p.upper), r: s.chosen ? 3.5 : 2.5, fill: s.color, class: "point" }, g);
      }
      const ly = TOP + 10 + i * 34, lx = LEFT + plotW + 14;
      el("line", { x1: lx, x2: lx + 18, y1: ly, y2: ly, stroke: s.color, "stroke-width": s.chosen ? 3.5 : 2 }, g);
      text(g, lx + 24, ly + 4, s.label + (s.chosen ? " (chosen)" : ""), { "font-weight": s.chosen ? 600 : 400 });
      if (s.note) text(g, lx + 24, ly + 18, s.note, { class: "note" });
    });
  }

  return { draw };
})();
