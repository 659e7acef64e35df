/* mongo-advisor audit report: draws the charts from the JSON embedded in the page with Chart.js (inlined above). */
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('audit-data').textContent);
  var charts = data.charts;
  var PALETTE = ['#1565c0', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#ad1457', '#5d4037'];
  var STATUS = { supported: '#2e7d32', refuted: '#c62828', inconclusive: '#9e9e9e', 'not-run': '#bdbdbd', error: '#6d4c41' };
  var drawn = 0;

  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.font.size = 12;

  function fmtNum(n) {
    if (n === null || n === undefined || !isFinite(n)) return String(n);
    var a = Math.abs(n);
    return n.toLocaleString('en-US', { maximumFractionDigits: a >= 100 ? 0 : a >= 10 ? 1 : 2 });
  }
  function fmtBytes(n) {
    var units = ['B', 'KB', 'MB', 'GB', 'TB'];
    var v = n, i = 0;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return (i === 0 ? String(Math.round(v)) : v.toFixed(v >= 100 ? 0 : 1)) + ' ' + units[i];
  }
  function fmtDate(ms) { return new Date(ms).toISOString().slice(0, 10); }
  function color(i) { return PALETTE[i % PALETTE.length]; }
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + ((n >> 16) & 255) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }
  function canvas(id) { return document.getElementById(id); }
  function empty(id, text) {
    var el = canvas(id);
    if (!el) return;
    var div = document.createElement('div');
    div.className = 'empty';
    div.textContent = text;
    el.parentNode.replaceWith(div);
  }
  function draw(id, config) {
    var el = canvas(id);
    if (!el) return;
    new Chart(el, config);
    drawn++;
  }

  // 1. How long arrays are, per path: sampled documents per length bucket.
  if (charts.arrays.length === 0) empty('chart-array-lengths', 'No arrays in the sampled documents.');
  else draw('chart-array-lengths', {
    type: 'bar',
    data: {
      labels: charts.lengthBuckets,
      datasets: charts.arrays.map(function (s, i) {
        return { label: s.collection + ' › ' + s.path + ' (max ' + fmtNum(s.maxLength) + ')', data: s.buckets, backgroundColor: alpha(color(i), 0.75), borderColor: color(i), borderWidth: 1 };
      }),
    },
    options: {
      scales: {
        x: { title: { display: true, text: 'elements per document' } },
        // Log scale so one document in the 10,000+ bucket stays visible beside hundreds in the first; bars start at 0.5.
        y: { type: 'logarithmic', min: 0.5, title: { display: true, text: 'sampled documents (log)' }, ticks: { callback: function (v) { return v >= 1 && Number.isInteger(Math.log10(v)) ? fmtNum(v) : ''; } } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });

  // 2. Growth: length against document age. A rising cloud is an array that keeps growing.
  var growth = charts.arrays.filter(function (s) { return s.growth.length > 0; });
  if (growth.length === 0) empty('chart-array-growth', 'No creation times: the sampled documents have neither an ObjectId _id nor a creation date field.');
  else draw('chart-array-growth', {
    type: 'scatter',
    data: {
      datasets: growth.map(function (s, i) {
        return {
          label: s.collection + ' › ' + s.path,
          data: s.growth.filter(function (p) { return p[1] > 0; }).map(function (p) { return { x: p[0], y: p[1] }; }),
          backgroundColor: alpha(color(i), 0.6), borderColor: color(i), pointRadius: 3,
        };
      }),
    },
    options: {
      scales: {
        x: { type: 'linear', title: { display: true, text: 'document created' }, ticks: { callback: function (v) { return fmtDate(v); }, maxTicksLimit: 8 } },
        y: { type: 'logarithmic', title: { display: true, text: 'elements (log)' }, ticks: { callback: function (v) { return Number.isInteger(Math.log10(v)) ? fmtNum(v) : ''; } } },
      },
      plugins: {
        legend: { position: 'bottom' },
        tooltip: { callbacks: { label: function (c) { return c.dataset.label + ': ' + fmtNum(c.parsed.y) + ' elements, created ' + fmtDate(c.parsed.x); } } },
      },
    },
  });

  // 3. _id order: per collection, Spearman's ρ between each _id's rank and its position in natural order, from the findings.
  var ORDER = { monotonic: '#2e7d32', random: '#c62828', unclear: '#9e9e9e' };
  if (charts.idOrder.length === 0) empty('chart-id-order', 'No _id order was judged (no finding measured it: collections too small, clustered, or read without id-pattern).');
  else draw('chart-id-order', {
    type: 'bar',
    data: {
      labels: charts.idOrder.map(function (s) { return s.collection + ' — ' + s.idType; }),
      datasets: [{
        label: 'ρ',
        data: charts.idOrder.map(function (s) { return s.rho; }),
        backgroundColor: charts.idOrder.map(function (s) { return alpha(ORDER[s.order] || '#9e9e9e', 0.75); }),
        borderColor: charts.idOrder.map(function (s) { return ORDER[s.order] || '#9e9e9e'; }),
        borderWidth: 1,
      }],
    },
    options: {
      indexAxis: 'y',
      scales: { x: { min: -1, max: 1, title: { display: true, text: "Spearman's ρ: _id rank against natural (insertion) order" } } },
      plugins: {
        legend: { display: false },
        tooltip: { callbacks: { label: function (c) { var s = charts.idOrder[c.dataIndex]; return 'ρ = ' + s.rho.toFixed(2) + ' over ' + fmtNum(s.n) + ' _ids: ' + s.order; } } },
      },
    },
  });

  // 4. Index sizes against the WiredTiger cache.
  var idx = charts.indexes;
  if (idx.top.length === 0) empty('chart-index-sizes', 'The server reported no index sizes.');
  else {
    var rows = [];
    if (idx.cacheBytes) rows.push({ label: 'WiredTiger cache', value: idx.cacheBytes, color: '#9e9e9e' });
    rows.push({ label: 'all ' + idx.count + ' indexes', value: idx.totalBytes, color: '#37474f' });
    idx.top.forEach(function (b) { rows.push({ label: b.collection + ' ' + b.name, value: b.sizeBytes, color: PALETTE[0] }); });
    draw('chart-index-sizes', {
      type: 'bar',
      data: {
        labels: rows.map(function (r) { return r.label; }),
        datasets: [{ label: 'bytes', data: rows.map(function (r) { return r.value; }), backgroundColor: rows.map(function (r) { return r.color; }) }],
      },
      options: {
        indexAxis: 'y',
        scales: {
          x: {
            type: 'logarithmic',
            title: { display: true, text: 'size (log)' },
            // Ticks at 1 KB, 32 KB, 1 MB, 32 MB, … rather than at powers of ten, which read badly as bytes.
            afterBuildTicks: function (axis) {
              var ticks = [];
              for (var v = 1024; v <= axis.max * 1.0001; v *= 32) if (v >= axis.min) ticks.push({ value: v });
              if (ticks.length) axis.ticks = ticks;
            },
            ticks: { callback: function (v) { return fmtBytes(v); } },
          },
        },
        plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) { return fmtBytes(c.parsed.x); } } } },
      },
    });
  }

  // 5. Confirmations: the measured ratio with its bootstrap 95% interval; 1 means no difference.
  var withRatio = charts.confirmations.filter(function (c) { return c.ratio; });
  if (withRatio.length === 0) empty('chart-confirmations', charts.confirmations.length ? 'No experiment produced a ratio (see the statuses in the findings table).' : 'No experiment ran (confirmation was off, or no finding has one).');
  else {
    var refLine = {
      id: 'noEffect',
      afterDatasetsDraw: function (chart) {
        var x = chart.scales.x.getPixelForValue(1);
        var ctx = chart.ctx;
        ctx.save();
        ctx.strokeStyle = '#455a64';
        ctx.setLineDash([4, 4]);
        ctx.beginPath();
        ctx.moveTo(x, chart.chartArea.top);
        ctx.lineTo(x, chart.chartArea.bottom);
        ctx.stroke();
        ctx.restore();
      },
    };
    draw('chart-confirmations', {
      type: 'bar',
      data: {
        // Two-line labels: what was checked, then what the ratio compares.
        labels: withRatio.map(function (c) { return [c.label, c.ratio.label]; }),
        datasets: [
          { type: 'bar', label: '95% interval', data: withRatio.map(function (c) { return [c.ratio.low, c.ratio.high]; }), backgroundColor: withRatio.map(function (c) { return alpha(STATUS[c.status] || '#9e9e9e', 0.35); }), borderColor: withRatio.map(function (c) { return STATUS[c.status] || '#9e9e9e'; }), borderWidth: 1, barPercentage: 0.5 },
          { type: 'line', label: 'median', data: withRatio.map(function (c) { return c.ratio.median; }), showLine: false, pointStyle: 'rectRot', pointRadius: 7, backgroundColor: withRatio.map(function (c) { return STATUS[c.status] || '#9e9e9e'; }), borderColor: '#263238' },
        ],
      },
      options: {
        indexAxis: 'y',
        scales: { x: { type: 'logarithmic', title: { display: true, text: 'ratio (log); dashed line = no difference' }, ticks: { maxRotation: 0, callback: function (v) { return [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500].indexOf(Number(v.toPrecision(1))) >= 0 ? fmtNum(v) + '×' : ''; } } } },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: { callbacks: { label: function (c) { var r = withRatio[c.dataIndex].ratio; return 'median ' + fmtNum(r.median) + '×, 95% interval ' + fmtNum(r.low) + '–' + fmtNum(r.high) + '×'; } } },
        },
      },
      plugins: [refLine],
    });
  }

  var copy = document.getElementById('copy-ticket');
  if (copy) copy.addEventListener('click', function () {
    var text = document.getElementById('ticket').textContent;
    var done = function () { copy.textContent = 'Copied'; setTimeout(function () { copy.textContent = 'Copy'; }, 1500); };
    if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, function () {});
    else {
      var range = document.createRange();
      range.selectNodeContents(document.getElementById('ticket'));
      var sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      copy.textContent = 'Selected: press Ctrl-C';
    }
  });

  document.body.setAttribute('data-charts-drawn', String(drawn));
})();
