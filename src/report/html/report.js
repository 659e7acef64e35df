/* mongo-advisor audit report: draws the charts from the JSON embedded in the page with Chart.js (inlined above). */
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('audit-data').textContent);
  var charts = data.charts;
  var PALETTE = ['#1565c0', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#ad1457', '#5d4037'];
  var STATUS = {
    supported: '#2e7d32',
    refuted: '#c62828',
    inconclusive: '#9e9e9e',
    'not-run': '#bdbdbd',
    error: '#6d4c41',
  };
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
  // IEC units with formatNumber's precision, as src/core/format.ts formatBytes prints them.
  function fmtBytes(n) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
    var v = Math.abs(n),
      i = 0;
    function rounded(x) {
      var f = x >= 100 ? 1 : x >= 10 ? 10 : 100;
      return Math.round(x * f) / f;
    }
    while (i < units.length - 1 && (i === 0 ? Math.round(v) : rounded(v)) >= 1024) {
      v /= 1024;
      i++;
    }
    return (n < 0 ? '-' : '') + fmtNum(i === 0 ? Math.round(v) : rounded(v)) + ' ' + units[i];
  }
  function finite(xs) {
    return xs.filter(function (x) {
      return typeof x === 'number' && isFinite(x) && x > 0;
    });
  }
  /** Bounds of a log axis that hold every value with a margin: [lowest / pad, highest * pad]. */
  function logBounds(values, pad) {
    var v = finite(values);
    if (v.length === 0) return {};
    return { min: Math.min.apply(null, v) / pad, max: Math.max.apply(null, v) * pad };
  }
  /** A horizontal bar chart gets a row per bar, so no label is skipped for lack of room. */
  function fitRows(id, rows) {
    var el = canvas(id);
    if (el) el.parentNode.style.height = Math.max(300, 90 + rows * 26) + 'px';
  }
  /** Rows of a horizontal bar chart whose labels have several lines: a line of label is about half a row. */
  function labelRows(labels) {
    // every category gets the same height: the one with the most lines sets it
    var lines = Math.max.apply(
      null,
      [1].concat(
        labels.map(function (l) {
          return [].concat(l).length;
        }),
      ),
    );
    return labels.length * Math.max(1, 0.65 * lines);
  }

  /**
   * Every bar labelled, readably: each bar's value (the dataset's valueLabel(value, index)) drawn at its end, turned
   * upright when the bar is narrower than the text, so labels of neighbouring bars never overlap. Left on the canvas
   * for the tests: data-bars, data-labelled, data-label-overlaps (label boxes that intersect) and data-label-outside
   * (label boxes past the canvas).
   */
  var barValues = {
    id: 'barValues',
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx,
        horizontal = chart.options.indexAxis === 'y',
        bars = 0,
        labelled = 0,
        boxes = [];
      ctx.save();
      ctx.font = '11px ' + Chart.defaults.font.family;
      ctx.fillStyle = '#263238';
      chart.data.datasets.forEach(function (ds, di) {
        var meta = chart.getDatasetMeta(di);
        if (meta.type !== 'bar' || meta.hidden) return;
        meta.data.forEach(function (el, i) {
          var raw = ds.data[i];
          var value = Array.isArray(raw) ? raw : Number(raw);
          if (!Array.isArray(value) && !(value > 0 || value < 0)) return; // no bar drawn for 0 or a missing value
          bars++;
          var text = ds.valueLabel ? ds.valueLabel(value, i) : fmtNum(value);
          if (!text) return;
          var w = ctx.measureText(text).width,
            h = 11;
          if (horizontal) {
            var x0 = Math.max(el.x, el.base) + 4;
            ctx.textAlign = 'left';
            ctx.textBaseline = 'middle';
            ctx.fillText(text, x0, el.y);
            boxes.push([x0, el.y - h / 2, x0 + w, el.y + h / 2]);
          } else {
            var top = Math.min(el.y, el.base) - 2;
            if (w + 2 <= el.width) {
              ctx.textAlign = 'center';
              ctx.textBaseline = 'bottom';
              ctx.fillText(text, el.x, top);
              boxes.push([el.x - w / 2, top - h, el.x + w / 2, top]);
            } else {
              // upright: read bottom to top, starting just above the bar
              ctx.save();
              ctx.translate(el.x, top);
              ctx.rotate(-Math.PI / 2);
              ctx.textAlign = 'left';
              ctx.textBaseline = 'middle';
              ctx.fillText(text, 0, 0);
              ctx.restore();
              boxes.push([el.x - h / 2, top - w, el.x + h / 2, top]);
            }
          }
          labelled++;
        });
      });
      ctx.restore();
      var overlaps = 0,
        outside = 0;
      for (var a = 0; a < boxes.length; a++) {
        var A = boxes[a];
        if (A[0] < 0 || A[1] < 0 || A[2] > chart.width || A[3] > chart.height) outside++;
        for (var b = a + 1; b < boxes.length; b++) {
          var B = boxes[b];
          if (A[0] < B[2] - 0.5 && B[0] < A[2] - 0.5 && A[1] < B[3] - 0.5 && B[1] < A[3] - 0.5) overlaps++;
        }
      }
      chart.canvas.setAttribute('data-ticks-clipped', String(clippedTicks(chart)));
      chart.canvas.setAttribute('data-bars', String(bars));
      chart.canvas.setAttribute('data-labelled', String(labelled));
      chart.canvas.setAttribute('data-label-overlaps', String(overlaps));
      chart.canvas.setAttribute('data-label-outside', String(outside));
    },
  };
  /**
   * Category labels of a vertical axis (a horizontal bar chart's names) that run past the canvas: Chart.js gives the
   * axis at most half the chart's width and draws a longer label off the left edge, cut. Counted for the tests.
   */
  function clippedTicks(chart) {
    var n = 0,
      ctx = chart.ctx;
    Object.keys(chart.scales).forEach(function (key) {
      var scale = chart.scales[key];
      if (scale.type !== 'category' || scale.isHorizontal()) return;
      ctx.save();
      ctx.font = Chart.helpers.toFont(scale.options.ticks.font).string;
      var pad = scale.options.ticks.padding || 0;
      scale.ticks.forEach(function (t) {
        var lines = [].concat(t.label);
        var w = Math.max.apply(
          null,
          lines.map(function (l) {
            return ctx.measureText(String(l)).width;
          }),
        );
        var start = scale.position === 'right' ? scale.left + pad : scale.right - pad - w;
        if (start < -0.5 || start + w > chart.width + 0.5) n++;
      });
      ctx.restore();
    });
    return n;
  }
  /**
   * Names for a vertical axis, each broken into lines (at ' — ', ' › ', '.', ' ') no wider than the axis can take:
   * half the canvas less the room kept on the right (Chart.js's limit for a side axis) and a margin.
   */
  function axisLabels(id, names, reserved) {
    var el = canvas(id);
    var width = el ? el.parentNode.clientWidth : 0;
    var max = Math.max(120, (width - reserved) / 2 - 24);
    var ctx = document.createElement('canvas').getContext('2d');
    ctx.font = Chart.defaults.font.size + 'px ' + Chart.defaults.font.family;
    function fits(text) {
      return ctx.measureText(text).width <= max;
    }
    return names.map(function (name) {
      return [].concat(name).reduce(function (out, line) {
        return out.concat(wrapLine(String(line), fits));
      }, []);
    });
  }
  /** Room on the right of a horizontal bar chart for the value labels drawn past the bars' ends (11 px text). */
  function labelRoom(texts, least) {
    var ctx = document.createElement('canvas').getContext('2d');
    ctx.font = '11px ' + Chart.defaults.font.family;
    return Math.ceil(
      Math.max.apply(
        null,
        [least].concat(
          texts.map(function (t) {
            return ctx.measureText(t).width + 12;
          }),
        ),
      ),
    );
  }
  /** One line as lines that fit, broken after a separator; a piece with none is cut where it must be. */
  function wrapLine(text, fits) {
    if (fits(text)) return [text];
    var parts = text.split(/(?<= — | › |\.| )/);
    var lines = [],
      line = '';
    parts.forEach(function (part) {
      if (line && !fits(line + part)) {
        lines.push(line.trimEnd());
        line = '';
      }
      line += part;
      while (!fits(line) && line.length > 1) {
        var cut = line.length - 1;
        while (cut > 1 && !fits(line.slice(0, cut))) cut--;
        lines.push(line.slice(0, cut));
        line = line.slice(cut);
      }
    });
    if (line) lines.push(line.trimEnd());
    return lines;
  }
  /** A vertical chart with a legend row per series below it: tall enough that the legend never squeezes the plot. */
  function fitLegend(id, series) {
    var el = canvas(id);
    if (el) el.parentNode.style.height = Math.max(300, 280 + series * 22) + 'px';
  }
  /**
   * Bars grouped by category: past a few series per group the bars grow narrower than an upright label (11 px), so
   * the card takes the full row of the grid.
   */
  function fitGroups(id, series) {
    var el = canvas(id);
    var card = el && el.closest('.card');
    if (card && series > 4) card.classList.add('wide');
  }
  function fmtDate(ms) {
    return new Date(ms).toISOString().slice(0, 10);
  }
  var MINUTE = 60000,
    HOUR = 60 * MINUTE,
    DAY = 24 * HOUR;
  // Calendar steps for a time axis, from seconds to decades; months and years counted on the calendar.
  var TIME_STEPS = [1000, 5000, 15000, 30000, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 3 * HOUR, 6 * HOUR]
    .map(function (ms) {
      return { ms: ms };
    })
    .concat([{ ms: 12 * HOUR }, { ms: DAY }, { ms: 2 * DAY }, { ms: 7 * DAY }, { ms: 14 * DAY }])
    .concat(
      [1, 2, 3, 6, 12, 24, 60, 120].map(function (m) {
        return { months: m };
      }),
    );
  /**
   * Ticks of a time axis: the finest calendar step that puts at most `most` ticks between the oldest and the newest
   * point (never on the padding, where a date would read as data), each labelled as precisely as its step needs.
   */
  function timeTicks(lo, hi, width) {
    var chosen = null;
    for (var i = 0; i < TIME_STEPS.length && !chosen; i++) {
      var step = TIME_STEPS[i];
      // room per label: a date and time, a date, a month, a year
      var room = step.months ? (step.months >= 12 ? 50 : 70) : step.ms >= DAY ? 90 : 130;
      var most = Math.max(2, Math.min(8, Math.floor(width / room)));
      var values = stepValues(step, lo, hi);
      if (values.length <= most) chosen = { step: step, values: values };
    }
    if (!chosen || chosen.values.length === 0) chosen = { step: { ms: DAY }, values: [lo] };
    var unit = chosen.step;
    var format = unit.months
      ? function (v) {
          return new Date(v).toISOString().slice(0, unit.months >= 12 ? 4 : 7);
        }
      : unit.ms >= DAY
        ? fmtDate
        : function (v) {
            var iso = new Date(v).toISOString();
            return iso.slice(0, 10) + ' ' + iso.slice(11, unit.ms >= MINUTE ? 16 : 19);
          };
    return { values: chosen.values, format: format };
  }
  function stepValues(step, lo, hi) {
    var out = [];
    if (step.months) {
      var d = new Date(lo);
      var m = d.getUTCFullYear() * 12 + d.getUTCMonth();
      m = Math.ceil(m / step.months) * step.months;
      for (var v = Date.UTC(Math.floor(m / 12), m % 12, 1); v <= hi; ) {
        if (v >= lo) out.push(v);
        m += step.months;
        v = Date.UTC(Math.floor(m / 12), m % 12, 1);
        if (out.length > 50) break;
      }
      return out;
    }
    if ((hi - lo) / step.ms > 50) return new Array(51);
    for (var t = Math.ceil(lo / step.ms) * step.ms; t <= hi; t += step.ms) out.push(t);
    return out;
  }
  function color(i) {
    return PALETTE[i % PALETTE.length];
  }
  function alpha(hex, a) {
    var n = parseInt(hex.slice(1), 16);
    return 'rgba(' + ((n >> 16) & 255) + ',' + ((n >> 8) & 255) + ',' + (n & 255) + ',' + a + ')';
  }
  function canvas(id) {
    return document.getElementById(id);
  }
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
    config.plugins = (config.plugins || []).concat([barValues]);
    new Chart(el, config);
    drawn++;
  }

  // 1. How long arrays are, per path: sampled documents per length bucket.
  if (charts.arrays.length === 0) empty('chart-array-lengths', 'No arrays in the sampled documents.');
  else {
    fitLegend('chart-array-lengths', charts.arrays.length);
    fitGroups('chart-array-lengths', charts.arrays.length);
  }
  if (charts.arrays.length > 0)
    draw('chart-array-lengths', {
      type: 'bar',
      data: {
        labels: charts.lengthBuckets,
        datasets: charts.arrays.map(function (s, i) {
          return {
            label: s.collection + ' › ' + s.path + ' (max ' + fmtNum(s.maxLength) + ')',
            data: s.buckets,
            backgroundColor: alpha(color(i), 0.75),
            borderColor: color(i),
            borderWidth: 1,
            valueLabel: function (v) {
              return fmtNum(v);
            },
          };
        }),
      },
      options: {
        // room above the tallest bar for an upright label ("10,000")
        layout: { padding: { top: 40 } },
        scales: {
          x: { title: { display: true, text: 'elements per document' }, ticks: { autoSkip: false } },
          // Log scale so one document in the 10,000+ bucket stays visible beside hundreds in the first; bars start at
          // 0.5.
          y: {
            type: 'logarithmic',
            min: 0.5,
            max:
              Math.max.apply(
                null,
                [1].concat(
                  charts.arrays.map(function (s) {
                    return Math.max.apply(null, s.buckets);
                  }),
                ),
              ) * 2,
            title: { display: true, text: 'documents (log)' },
            ticks: {
              callback: function (v) {
                return v >= 1 && Number.isInteger(Math.log10(v)) ? fmtNum(v) : '';
              },
            },
          },
        },
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
      },
    });

  // 2. Growth: length against document age. A rising cloud is an array that keeps growing.
  var growth = charts.arrays.filter(function (s) {
    return s.growth.some(function (p) {
      return p[1] > 0;
    });
  });
  var points = [];
  growth.forEach(function (s) {
    s.growth.forEach(function (p) {
      if (p[1] > 0) points.push(p);
    });
  });
  var xs = points.map(function (p) {
      return p[0];
    }),
    ys = points.map(function (p) {
      return p[1];
    });
  var xMin = Math.min.apply(null, xs),
    xMax = Math.max.apply(null, xs),
    // 3% of the span each side; a day when every point has the same time
    xPad = xMax > xMin ? (xMax - xMin) * 0.03 : 86400000,
    xTimes = timeTicks(
      xMin,
      xMax,
      (canvas('chart-array-growth') || { parentNode: { clientWidth: 600 } }).parentNode.clientWidth - 90,
    );
  if (growth.length === 0)
    empty(
      'chart-array-growth',
      'No creation times: the sampled documents have neither an ObjectId _id nor a creation date field.',
    );
  else fitLegend('chart-array-growth', growth.length);
  if (growth.length > 0)
    draw('chart-array-growth', {
      type: 'scatter',
      data: {
        datasets: growth.map(function (s, i) {
          return {
            label: s.collection + ' › ' + s.path,
            data: s.growth
              .filter(function (p) {
                return p[1] > 0;
              })
              .map(function (p) {
                return { x: p[0], y: p[1] };
              }),
            backgroundColor: alpha(color(i), 0.6),
            borderColor: color(i),
            pointRadius: 3,
          };
        }),
      },
      options: {
        scales: {
          // the padding keeps edge points off the frame; its bounds get no date label (a date after the newest point,
          // often in the future, read as data)
          x: {
            type: 'linear',
            min: xMin - xPad,
            max: xMax + xPad,
            title: { display: true, text: 'document created' },
            ticks: {
              callback: function (v) {
                return xTimes.format(v);
              },
              autoSkip: false,
            },
            afterBuildTicks: function (axis) {
              axis.ticks = xTimes.values.map(function (v) {
                return { value: v };
              });
            },
          },
          y: {
            type: 'logarithmic',
            min: Math.min.apply(null, ys) / 1.5,
            max: Math.max.apply(null, ys) * 1.5,
            title: { display: true, text: 'elements (log)' },
            ticks: {
              callback: function (v) {
                return Number.isInteger(Math.log10(v)) ? fmtNum(v) : '';
              },
            },
          },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12 } },
          tooltip: {
            callbacks: {
              label: function (c) {
                return c.dataset.label + ': ' + fmtNum(c.parsed.y) + ' elements, created ' + fmtDate(c.parsed.x);
              },
            },
          },
        },
      },
    });

  // 3. _id order: per collection, Spearman's ρ between each _id's rank and its position in natural order, from the
  // findings.
  function idValueLabel(s) {
    return 'ρ = ' + s.rho.toFixed(2) + ' (' + s.order + ')';
  }
  var ORDER = { monotonic: '#2e7d32', random: '#c62828', unclear: '#9e9e9e' };
  // the collection on one line (or more), the _id type under it
  var idRoom = labelRoom(
    charts.idOrder.map(function (s) {
      return idValueLabel(s);
    }),
    120,
  );
  var idLabels = axisLabels(
    'chart-id-order',
    charts.idOrder.map(function (s) {
      return [s.collection, s.idType];
    }),
    idRoom,
  );
  fitRows('chart-id-order', labelRows(idLabels));
  if (charts.idOrder.length === 0)
    empty(
      'chart-id-order',
      'No _id order was judged (no finding measured it: collections too small, clustered, or read without id-pattern).',
    );
  else
    draw('chart-id-order', {
      type: 'bar',
      data: {
        labels: idLabels,
        datasets: [
          {
            label: 'ρ',
            data: charts.idOrder.map(function (s) {
              return s.rho;
            }),
            backgroundColor: charts.idOrder.map(function (s) {
              return alpha(ORDER[s.order] || '#9e9e9e', 0.75);
            }),
            borderColor: charts.idOrder.map(function (s) {
              return ORDER[s.order] || '#9e9e9e';
            }),
            borderWidth: 1,
            valueLabel: function (v, i) {
              return idValueLabel(charts.idOrder[i]);
            },
          },
        ],
      },
      options: {
        indexAxis: 'y',
        layout: { padding: { right: idRoom } },
        scales: {
          x: {
            min: -1,
            max: 1,
            title: { display: true, text: "Spearman's ρ: _id rank against natural (insertion) order" },
          },
          y: { ticks: { autoSkip: false } },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: function (c) {
                var s = charts.idOrder[c.dataIndex];
                return 'ρ = ' + s.rho.toFixed(2) + ' over ' + fmtNum(s.n) + ' _ids: ' + s.order;
              },
            },
          },
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
    idx.top.forEach(function (b) {
      rows.push({ label: b.collection + ' ' + b.name, value: b.sizeBytes, color: PALETTE[0] });
    });
    var sizeBounds = logBounds(
      rows.map(function (r) {
        return r.value;
      }),
      2,
    );
    var sizeRoom = labelRoom(
      rows.map(function (r) {
        return fmtBytes(r.value);
      }),
      70,
    );
    var sizeLabels = axisLabels(
      'chart-index-sizes',
      rows.map(function (r) {
        return r.label;
      }),
      sizeRoom,
    );
    fitRows('chart-index-sizes', labelRows(sizeLabels));
    draw('chart-index-sizes', {
      type: 'bar',
      data: {
        labels: sizeLabels,
        datasets: [
          {
            label: 'bytes',
            data: rows.map(function (r) {
              return r.value;
            }),
            backgroundColor: rows.map(function (r) {
              return r.color;
            }),
            valueLabel: function (v) {
              return fmtBytes(v);
            },
          },
        ],
      },
      options: {
        indexAxis: 'y',
        layout: { padding: { right: sizeRoom } },
        scales: {
          y: { ticks: { autoSkip: false } },
          x: {
            type: 'logarithmic',
            min: sizeBounds.min,
            max: sizeBounds.max,
            title: { display: true, text: 'size (log)' },
            // Ticks at 1 KiB, 32 KiB, 1 MiB, 32 MiB, … rather than at powers of ten, which read badly as bytes.
            afterBuildTicks: function (axis) {
              var ticks = [];
              for (var v = 1024; v <= axis.max * 1.0001; v *= 32) if (v >= axis.min) ticks.push({ value: v });
              if (ticks.length) axis.ticks = ticks;
            },
            ticks: {
              callback: function (v) {
                return fmtBytes(v);
              },
            },
          },
        },
        plugins: {
          legend: { display: false },
          tooltip: {
            callbacks: {
              label: function (c) {
                return fmtBytes(c.parsed.x);
              },
            },
          },
        },
      },
    });
  }

  // 5. Confirmations: the measured ratio with its interval (each states its own coverage); 1 means no difference.
  var withRatio = charts.confirmations.filter(function (c) {
    return c.ratio && finite([c.ratio.low, c.ratio.median, c.ratio.high]).length === 3;
  });
  function intervalName(r) {
    return r.coverage === undefined
      ? 'interval'
      : Math.floor(Math.min(r.coverage, 0.999) * 1000 + 1e-9) / 10 + '% interval';
  }
  // The axis holds every interval end, every median and the no-difference line, with a margin.
  var ratioBounds = logBounds(
    [1].concat.apply(
      [1],
      withRatio.map(function (c) {
        return [c.ratio.low, c.ratio.median, c.ratio.high];
      }),
    ),
    1.3,
  );
  function ratioText(r) {
    return fmtNum(r.median) + '× (' + fmtNum(r.low) + '–' + fmtNum(r.high) + ')';
  }
  var ratioRoom = labelRoom(
    withRatio.map(function (c) {
      return ratioText(c.ratio);
    }),
    110,
  );
  var ratioLabels = axisLabels(
    'chart-confirmations',
    withRatio.map(function (c) {
      return [c.label, c.ratio.label];
    }),
    ratioRoom,
  );
  fitRows('chart-confirmations', Math.max(withRatio.length * 1.6, labelRows(ratioLabels)));
  if (withRatio.length === 0)
    empty(
      'chart-confirmations',
      charts.confirmations.length
        ? 'No experiment produced a ratio (see the statuses in the findings table).'
        : 'No experiment ran (confirmation was off, or no finding has one).',
    );
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
        labels: ratioLabels,
        datasets: [
          {
            type: 'bar',
            label: 'interval (coverage in the tooltip)',
            data: withRatio.map(function (c) {
              return [c.ratio.low, c.ratio.high];
            }),
            backgroundColor: withRatio.map(function (c) {
              return alpha(STATUS[c.status] || '#9e9e9e', 0.35);
            }),
            borderColor: withRatio.map(function (c) {
              return STATUS[c.status] || '#9e9e9e';
            }),
            borderWidth: 1,
            barPercentage: 0.5,
            valueLabel: function (v, i) {
              return ratioText(withRatio[i].ratio);
            },
          },
          {
            type: 'line',
            label: 'median',
            data: withRatio.map(function (c) {
              return c.ratio.median;
            }),
            showLine: false,
            pointStyle: 'rectRot',
            pointRadius: 7,
            backgroundColor: withRatio.map(function (c) {
              return STATUS[c.status] || '#9e9e9e';
            }),
            borderColor: '#263238',
          },
        ],
      },
      options: {
        indexAxis: 'y',
        layout: { padding: { right: ratioRoom } },
        scales: {
          x: {
            type: 'logarithmic',
            min: ratioBounds.min,
            max: ratioBounds.max,
            title: { display: true, text: 'ratio (log); dashed line = no difference' },
            ticks: {
              maxRotation: 0,
              callback: function (v) {
                return [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000].indexOf(
                  Number(v.toPrecision(1)),
                ) >= 0
                  ? fmtNum(v) + '×'
                  : '';
              },
            },
          },
          y: { ticks: { autoSkip: false } },
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: {
            callbacks: {
              label: function (c) {
                var r = withRatio[c.dataIndex].ratio;
                return (
                  'median ' +
                  fmtNum(r.median) +
                  '×, ' +
                  intervalName(r) +
                  ' ' +
                  fmtNum(r.low) +
                  '–' +
                  fmtNum(r.high) +
                  '×'
                );
              },
            },
          },
        },
      },
      plugins: [refLine],
    });
  }

  var copy = document.getElementById('copy-ticket');
  if (copy)
    copy.addEventListener('click', function () {
      var text = document.getElementById('ticket').textContent;
      var done = function () {
        copy.textContent = 'Copied';
        setTimeout(function () {
          copy.textContent = 'Copy';
        }, 1500);
      };
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
