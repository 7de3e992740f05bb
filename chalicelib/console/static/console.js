// The console's own script (served from the service's origin; the Content-Security-Policy allows no inline script).
// Charts: an element with data-chart holds its series as JSON in data-series:
//   {"x": [unix seconds...], "series": [{"label": "Deposits", "values": [...]}, ...], "unit": "USDT"}
// Forms with data-confirm ask before they are sent.
(function () {
  "use strict";

  var COLOURS = ["#2459d3", "#c2410c", "#047857", "#7c3aed"];

  function drawCharts(root) {
    if (typeof uPlot === "undefined") return;
    root.querySelectorAll("[data-chart]:not([data-drawn])").forEach(function (el) {
      var spec;
      try {
        spec = JSON.parse(el.getAttribute("data-series") || "{}");
      } catch (e) {
        return;
      }
      if (!spec.x || !spec.x.length) return;
      var data = [spec.x];
      var series = [{}];
      (spec.series || []).forEach(function (s, i) {
        data.push(s.values);
        series.push({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, points: { show: true } });
      });
      el.setAttribute("data-drawn", "true");
      var width = Math.max(320, Math.min(900, el.clientWidth || 720));
      new uPlot(
        {
          width: width,
          height: 240,
          series: series,
          scales: { x: { time: true } },
          axes: [{}, { label: spec.unit || "" }],
        },
        data,
        el
      );
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form instanceof HTMLFormElement && form.hasAttribute("data-confirm")) {
      if (!window.confirm(form.getAttribute("data-confirm"))) event.preventDefault();
    }
  }, true);

  document.addEventListener("DOMContentLoaded", function () {
    drawCharts(document);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    drawCharts(event.target);
  });
})();
