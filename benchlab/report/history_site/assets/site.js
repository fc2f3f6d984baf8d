/* benchlab history site: sorting and filtering the index; on a series page, the detail
   chart and table of the window brushed on the overview. Vanilla JavaScript, shipped
   with benchlab and copied beside the pages: it fetches nothing, and every text it shows
   goes in through textContent or an attribute, never as markup. */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, text) {
    var node = tag.indexOf("svg:") === 0 ? document.createElementNS(SVG, tag.slice(4))
      : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // -- sorting: a click on a header sorts by its cells' data-sort (numbers as numbers) --
  function sortKey(row, column) {
    var c = row.cells[column];
    return c ? (c.getAttribute("data-sort") || "") : "";
  }

  function compare(a, b) {
    if (a === b) return 0;
    if (a === "") return 1;  // the missing last, whichever the direction
    if (b === "") return -1;
    var x = Number(a), y = Number(b);
    if (isFinite(x) && isFinite(y)) return x - y;
    return a.localeCompare(b);
  }

  function sortable(table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      if (!th.hasAttribute("data-sortable")) return;
      th.tabIndex = 0;
      function sort() {
        var up = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r, s) {
          var a = sortKey(r, column), b = sortKey(s, column);
          if (a === "" || b === "") return compare(a, b);
          return up ? compare(a, b) : compare(b, a);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  }

  // -- filtering the index: every word in a name cell, and the verdict --
  function filters() {
    var input = document.getElementById("filter");
    var verdict = document.getElementById("verdict-filter");
    var shown = document.getElementById("shown");
    var table = document.getElementById("series");
    if (!input || !verdict || !table) return;
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    function apply() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var want = verdict.value, count = 0;
      rows.forEach(function (r) {
        var text = [0, 1, 2].map(function (i) { return r.cells[i].textContent; })
          .join(" ").toLowerCase();
        var ok = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
          (!want || r.getAttribute("data-verdict") === want);
        r.hidden = !ok;
        if (ok) count += 1;
      });
      shown.textContent = "showing " + count + " of " + rows.length + " series";
      var query = new URLSearchParams();
      if (input.value) query.set("q", input.value);
      if (want) query.set("verdict", want);
      var hash = query.toString();
      try {  // keep the filter in the address, so a link or a reload shows the same rows
        window.history.replaceState(null, "", "#" + hash);
      } catch (ignored) {  // a browser that refuses it for file:// pages: the filter works
      }
    }
    var start = new URLSearchParams(window.location.hash.slice(1));
    input.value = start.get("q") || "";
    verdict.value = start.get("verdict") || "";
    input.addEventListener("input", apply);
    verdict.addEventListener("change", apply);
    apply();
  }

  // -- a series page --
  function niceTicks(lo, hi, count) {
    var span = hi - lo;
    if (!(span > 0) || !isFinite(span)) return [lo];
    var raw = span / count, power = Math.pow(10, Math.floor(Math.log10(raw)));
    var step = [1, 2, 5, 10].map(function (m) { return m * power; })
      .filter(function (s) { return s >= raw; })[0];
    var out = [], first = Math.ceil(lo / step) * step;
    for (var v = first; v <= hi + step * 1e-9; v += step) out.push(v);
    return out;
  }

  function seriesPage() {
    var node = document.getElementById("series-data");
    var overview = document.getElementById("overview");
    var detail = document.getElementById("detail");
    if (!node || !overview || !detail) return;
    var data = JSON.parse(node.textContent);
    var commits = window.BENCHLAB_COMMITS || [];
    var template = document.body.getAttribute("data-commit-url") || "";
    var rows = data.commits, n = rows.length;
    var unit = data.unit ? " " + data.unit : "";

    function show(v) {
      if (v === null || v === undefined) return "n/a";
      var x = v / data.factor;
      return Number(x.toPrecision(6)).toString() + unit;
    }

    function sha(i) { var c = commits[rows[i][0]]; return c ? c[0] : "?"; }
    function date(i) { var c = commits[rows[i][0]]; return c && c[1] ? c[1] : ""; }

    function visible(text) {  // controls as escapes, as the pages' own text (escape.py)
      return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
        function (c) {
          var named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}, code = c.charCodeAt(0);
          if (named[c]) return named[c];
          return code < 256 ? "\\x" + ("0" + code.toString(16)).slice(-2)
            : "\\u" + ("000" + code.toString(16)).slice(-4);
        });
    }

    function commitCell(i) {
      var id = sha(i), code = el("code", {title: visible(id)}, visible(id.slice(0, 12)));
      if (!template) return code;
      var a = el("a", {"class": "commit"});
      a.href = template.split("{sha}").join(encodeURIComponent(id));
      a.appendChild(code);
      return a;
    }

    var left = Number(overview.getAttribute("data-left"));
    var width = Number(overview.getAttribute("data-width"));
    var brush = overview.querySelector(".brush");

    function toIndex(clientX) {
      var box = overview.getBoundingClientRect();
      var x = (clientX - box.left) * overview.viewBox.baseVal.width / box.width;
      var i = n > 1 ? Math.round((x - left) / width * (n - 1)) : 0;
      return Math.max(0, Math.min(n - 1, i));
    }

    function xOf(i) { return n > 1 ? left + i * width / (n - 1) : left + width / 2; }

    var label = document.getElementById("window");

    function draw(a, b) {
      var a0 = Math.min(a, b), b0 = Math.max(a, b);
      if (b0 - a0 < 1 && n > 1) { b0 = Math.min(n - 1, a0 + 1); a0 = Math.max(0, b0 - 1); }
      var x0 = xOf(a0 - 0.5 < 0 ? 0 : a0 - 0.5), x1 = xOf(b0 + 0.5 > n - 1 ? n - 1 : b0 + 0.5);
      brush.setAttribute("x", x0.toFixed(1));
      brush.setAttribute("width", Math.max(x1 - x0, 1).toFixed(1));
      label.textContent = "commits " + (a0 + 1) + " to " + (b0 + 1) + " of " + n;
      drawDetail(a0, b0);
      fillTable(a0, b0);
    }

    function drawDetail(a, b) {
      while (detail.firstChild) detail.removeChild(detail.firstChild);
      var W = 960, H = 300, L = 78, R = 12, T = 12, B = 34, pw = W - L - R, ph = H - T - B;
      var lo = Infinity, hi = -Infinity;
      for (var i = a; i <= b; i++) {
        var r = rows[i], vals = [r[2], r[3], r[4]].concat(r[5]);
        vals.forEach(function (v) {
          if (v !== null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
        });
      }
      if (!(hi > lo)) { var pad0 = Math.abs(lo) * 0.05 || 1; lo -= pad0; hi += pad0; }
      var pad = (hi - lo) * 0.05; lo -= pad; hi += pad;
      var m = b - a;
      function sx(i) { return L + (m > 0 ? (i - a) * pw / m : pw / 2); }
      function sy(v) { return T + (hi - v) / (hi - lo) * ph; }
      detail.appendChild(el("svg:rect", {"class": "frame", x: L, y: T, width: pw, height: ph}));
      var ticks = niceTicks(lo, hi, 5);
      // one unit (the series', data.factor) and the decimals the step between ticks needs
      var places = ticks.length > 1 ? Math.max(0, Math.ceil(
        -Math.log10(Math.abs(ticks[1] - ticks[0]) / data.factor) - 1e-9)) : null;
      ticks.forEach(function (v) {
        var y = sy(v).toFixed(1);
        detail.appendChild(el("svg:line", {"class": "grid", x1: L, x2: L + pw, y1: y, y2: y}));
        detail.appendChild(el("svg:text", {"class": "tick", x: L - 6, y: Number(y) + 4,
          "text-anchor": "end"}, places === null ? show(v)
            : (v / data.factor + 0).toFixed(Math.min(places, 20)) + unit));
      });
      var step = Math.max(1, Math.ceil((m + 1) / 8));
      for (var t = a; t <= b; t += step) {
        var anchor = sx(t) < L + 30 ? "start" : (sx(t) > L + pw - 30 ? "end" : "middle");
        detail.appendChild(el("svg:text", {"class": "tick", x: sx(t).toFixed(1),
          y: H - B + 16, "text-anchor": anchor}, visible(sha(t).slice(0, 8))));
      }
      var half = m > 0 ? pw / m / 2 : pw / 2;
      data.changes.forEach(function (c) {
        var end = c.end === null ? n : c.end;
        if (c.kind === "step") {
          if (c.start < a || c.start > b) return;
          var x = (sx(c.start) - half).toFixed(1);
          detail.appendChild(el("svg:line", {"class": "step " + c.css, x1: x, x2: x,
            y1: T, y2: T + ph}));
        } else if (end > a && c.start <= b) {
          var s0 = Math.max(sx(c.start) - half, L), s1 = Math.min(sx(end) - half, L + pw);
          detail.appendChild(el("svg:rect", {"class": "span " + c.css, x: s0.toFixed(1),
            y: T, width: Math.max(s1 - s0, 1).toFixed(1), height: ph}));
        }
      });
      var dots = m <= 400, points = [];
      for (var k = a; k <= b; k++) {
        var row = rows[k], x = sx(k), g = el("svg:g", {"class": "commit"});
        g.appendChild(el("svg:title", {}, visible(sha(k)) + ": mean " + show(row[2]) + ", " + row[1] +
          " units" + (row[3] === null ? "" : ", CI " + show(row[3]) + " .. " + show(row[4]))));
        if (row[3] !== null && row[4] !== null) {
          g.appendChild(el("svg:line", {"class": "ci", x1: x.toFixed(1), x2: x.toFixed(1),
            y1: sy(row[3]).toFixed(1), y2: sy(row[4]).toFixed(1)}));
        }
        if (dots) {
          row[5].forEach(function (v) {
            if (v === null) return;
            g.appendChild(el("svg:circle", {"class": "unit-dot", cx: x.toFixed(1),
              cy: sy(v).toFixed(1), r: 1.6}));
          });
        }
        detail.appendChild(g);
        points.push(x.toFixed(1) + "," + sy(row[2]).toFixed(1));
      }
      detail.appendChild(el("svg:polyline", {"class": "mean", points: points.join(" ")}));
      if (m < 100) {  // few commits: each mean a dot too (one commit draws no line)
        points.forEach(function (p) {
          var xy = p.split(",");
          detail.appendChild(el("svg:circle", {"class": "point", cx: xy[0], cy: xy[1], r: 2.2}));
        });
      }
      data.transients.forEach(function (i) {
        if (i < a || i > b) return;
        detail.appendChild(el("svg:circle", {"class": "transient", cx: sx(i).toFixed(1),
          cy: sy(rows[i][2]).toFixed(1), r: 3.5}));
      });
    }

    function fillTable(a, b) {
      var body = document.getElementById("commits").tBodies[0];
      while (body.firstChild) body.removeChild(body.firstChild);
      for (var i = b; i >= a; i--) {
        var r = rows[i], tr = el("tr", {"data-index": i});
        tr.appendChild(el("td", {"class": "num"}, String(i + 1)));
        var c = el("td"); c.appendChild(commitCell(i)); tr.appendChild(c);
        tr.appendChild(el("td", {}, visible(date(i))));
        tr.appendChild(el("td", {"class": "num"}, String(r[1])));
        tr.appendChild(el("td", {"class": "num", "data-value": String(r[2])}, show(r[2])));
        tr.appendChild(el("td", {"class": "num"}, show(r[3])));
        tr.appendChild(el("td", {"class": "num"}, show(r[4])));
        body.appendChild(tr);
      }
    }

    var dragging = null;
    overview.addEventListener("pointerdown", function (e) {
      dragging = toIndex(e.clientX);
      if (overview.setPointerCapture) overview.setPointerCapture(e.pointerId);
      e.preventDefault();
    });
    overview.addEventListener("pointermove", function (e) {
      if (dragging === null) return;
      var i = toIndex(e.clientX), x0 = xOf(Math.min(dragging, i)), x1 = xOf(Math.max(dragging, i));
      brush.setAttribute("x", x0.toFixed(1));
      brush.setAttribute("width", Math.max(x1 - x0, 1).toFixed(1));
    });
    overview.addEventListener("pointerup", function (e) {
      if (dragging === null) return;
      var i = toIndex(e.clientX), start = dragging;
      dragging = null;
      if (i === start) { draw(Math.max(0, i - 25), Math.min(n - 1, i + 25)); return; }
      draw(start, i);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-window]"), function (btn) {
      btn.addEventListener("click", function () {
        var w = btn.getAttribute("data-window");
        draw(w === "all" ? 0 : Math.max(0, n - Number(w)), n - 1);
      });
    });
    draw(n > 200 ? n - 200 : 0, n - 1);
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), sortable);
  filters();
  seriesPage();
})();
