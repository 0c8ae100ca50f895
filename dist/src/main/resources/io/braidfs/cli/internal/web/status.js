// The Braid status page: polls the server's JSON (/status/api/...) and fills the page. Every value
// goes into the page as text (textContent), never as markup: file names are user input.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const CHART_POINTS = 30;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    e.setAttribute(k, v);
  }
  for (const c of children) {
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function bytes(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? n : n.toFixed(1)) + ' ' + units[i];
}

function ago(ms) {
  return ms < 1000 ? ms + ' ms ago' : (ms / 1000).toFixed(1) + ' s ago';
}

async function getJson(url) {
  const r = await fetch(url, {cache: 'no-store'});
  const body = await r.json();
  if (!r.ok) {
    throw new Error(body.message || body.error || r.statusText);
  }
  return body;
}

function fillGrid(dl, pairs) {
  dl.replaceChildren(
      ...pairs.map(([k, v, cls]) => el('div', {}, el('dt', {}, k), el('dd', cls ? {class: cls} : {}, v))));
}

function fillRows(tbody, rows) {
  tbody.replaceChildren(...rows);
}

function td(v, cls) {
  return el('td', cls ? {class: cls} : {}, v);
}

function notice(text) {
  const n = document.getElementById('notice');
  n.hidden = !text;
  n.textContent = text || '';
}

function stamp() {
  document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
}

// ---- the chart: calls/s and mean latency from differences of the running totals ----------------

const chart = {prev: null, points: []};

async function pollRates(serverFilter) {
  const r = await getJson('/status/api/rates');
  let calls = 0;
  let nanos = 0;
  for (const [name, s] of Object.entries(r.servers)) {
    if (!serverFilter || name === serverFilter) {
      calls += s.calls;
      nanos += s.nanos;
    }
  }
  const now = {t: r.timeMs, calls, nanos};
  const p = chart.prev;
  chart.prev = now;
  if (p && now.t > p.t) {
    const dc = now.calls - p.calls;
    chart.points.push({
      rate: dc * 1000 / (now.t - p.t),
      latMs: dc > 0 ? (now.nanos - p.nanos) / dc / 1e6 : 0,
    });
    if (chart.points.length > CHART_POINTS) {
      chart.points.shift();
    }
    drawChart();
  }
}

function line(svg, values, cls, w, h) {
  const max = Math.max(...values, 1e-9);
  const step = w / (CHART_POINTS - 1);
  // The newest point at the right edge: the chart scrolls left as points arrive.
  const x0 = w - (values.length - 1) * step;
  const pts = values.map((v, i) => (x0 + i * step).toFixed(1) + ',' + (h - (v / max) * (h - 20) - 4).toFixed(1));
  const pl = document.createElementNS(SVG, 'polyline');
  pl.setAttribute('class', cls);
  pl.setAttribute('points', pts.join(' '));
  svg.append(pl);
  return max;
}

function drawChart() {
  const svg = document.getElementById('chart');
  const w = 600;
  const h = 160;
  svg.replaceChildren();
  const rates = chart.points.map((p) => p.rate);
  const lats = chart.points.map((p) => p.latMs);
  const maxRate = line(svg, rates, 'rate', w, h);
  const maxLat = line(svg, lats, 'lat', w, h);
  const label = document.createElementNS(SVG, 'text');
  label.setAttribute('x', '4');
  label.setAttribute('y', '12');
  label.textContent = 'max ' + maxRate.toFixed(1) + ' calls/s, ' + maxLat.toFixed(2) + ' ms';
  svg.append(label);
  svg.setAttribute('data-points', String(chart.points.length));
  const last = chart.points[chart.points.length - 1];
  document.getElementById('rate-now').textContent = last.rate.toFixed(1);
  document.getElementById('lat-now').textContent = last.latMs.toFixed(2) + ' ms';
}

// ---- warnings ---------------------------------------------------------------------------------

function fillWarnings(available, lines) {
  const ol = document.getElementById('warnings');
  if (!available) {
    ol.replaceChildren(el('li', {}, 'Not kept: the logging backend is not logback.'));
  } else if (lines.length === 0) {
    ol.replaceChildren(el('li', {class: 'muted'}, 'No warnings or errors since start.'));
  } else {
    ol.replaceChildren(...lines.map((l) =>
      el('li', {class: l.level}, l.time + ' ' + l.level + ' [' + l.thread + '] ' + l.logger + ': ' + l.message)));
  }
}

// ---- the MDS page -----------------------------------------------------------------------------

function nav(mdsHere, dataServers) {
  const links = [];
  if (mdsHere) {
    links.push(el('a', {href: '/'}, 'MDS'));
  }
  for (const id of dataServers) {
    links.push(el('a', {href: '/status/ds?id=' + encodeURIComponent(id)}, id));
  }
  links.push(el('a', {href: '/metrics'}, 'metrics'));
  document.getElementById('nav').replaceChildren(...links);
}

async function pollSummary() {
  const s = await getJson('/status/api/summary');
  nav(s.mdsHere, s.localDataServers);
  if (!s.mdsHere) {
    notice('No MDS runs in this process.');
    return;
  }
  if (s.role !== 'LEADER') {
    notice('This MDS is ' + s.role + (s.leader ? '; the leader is ' + s.leader : '') +
        '. Only the leader shows the cluster.');
    fillGrid(document.getElementById('summary'), [['Role', s.role, s.role]]);
    return;
  }
  notice(s.safeMode ? 'Safe mode: waiting for data servers to report, ' +
      (s.safeModeRemainingMs / 1000).toFixed(0) + ' s left.' : '');
  fillGrid(document.getElementById('summary'), [
    ['Role', s.role, s.role],
    ['Address', s.address],
    ['Epoch', s.epoch],
    ['Health', s.health, s.health],
    ['Safe mode', s.safeMode ? 'on' : 'off'],
    ['Capacity', bytes(s.capacityBytes)],
    ['Used', bytes(s.usedBytes)],
    ['Available', bytes(s.availableBytes)],
    ['Files', s.files],
    ['Directories', s.directories],
    ['Chunks', s.chunks],
    ['Under-replicated / corrupt / missing files',
      s.underReplicatedFiles + ' / ' + s.corruptFiles + ' / ' + s.missingFiles],
    ['Data servers live / dead', s.liveServers + ' / ' + s.deadServers],
    ['Journal index', s.journalIndex],
  ]);
  fillRows(document.querySelector('#servers tbody'), s.servers.map((d) => el('tr', {},
      td(d.id), td(d.address), td(d.rack), td(d.state, d.state), td(bytes(d.capacityBytes), 'num'),
      td(bytes(d.usedBytes), 'num'), td(d.replicas, 'num'), td(d.dataDirs + ' (' + d.failedDataDirs + ')'),
      td(ago(d.lastHeartbeatMs)))));
  stamp();
}

function target() {
  const h = new URLSearchParams(location.hash.slice(1));
  return h.has('file') ? {file: h.get('file')} : {dir: h.get('dir') || '/'};
}

function go(kind, path) {
  location.hash = kind + '=' + encodeURIComponent(path);
}

function join(dir, name) {
  return dir === '/' ? '/' + name : dir + '/' + name;
}

function crumbs(path, isFile) {
  const p = document.getElementById('crumbs');
  const parts = path.split('/').filter((x) => x);
  const items = [el('a', {'data-path': '/'}, '/')];
  let cur = '';
  parts.forEach((name, i) => {
    cur += '/' + name;
    const last = i === parts.length - 1;
    items.push(last && isFile ? el('span', {}, name) : el('a', {'data-path': cur}, name));
    if (!last) {
      items.push(' / ');
    }
  });
  p.replaceChildren(...items);
  for (const a of p.querySelectorAll('a')) {
    a.addEventListener('click', () => go('dir', a.getAttribute('data-path')));
  }
}

async function browse() {
  const t = target();
  const err = document.getElementById('browse-error');
  err.hidden = true;
  try {
    if (t.file !== undefined) {
      await showFile(t.file);
    } else {
      await showDir(t.dir);
    }
  } catch (e) {
    err.hidden = false;
    err.textContent = e.message;
  }
}

async function showDir(path) {
  const d = await getJson('/status/api/ls?path=' + encodeURIComponent(path));
  crumbs(d.path, false);
  document.getElementById('file').hidden = true;
  document.getElementById('listing').hidden = false;
  document.getElementById('listing-more').hidden = !d.truncated;
  fillRows(document.querySelector('#listing tbody'), d.entries.map((e) => {
    const full = join(d.path, e.name);
    const link = el('a', {class: 'entry', 'data-path': full}, e.name);
    if (e.type === 'DIRECTORY') {
      link.addEventListener('click', () => go('dir', full));
    } else if (e.type === 'REGULAR') {
      link.addEventListener('click', () => go('file', full));
    }
    return el('tr', {}, td(link), td(e.type), td(e.type === 'DIRECTORY' ? '' : bytes(e.size), 'num'),
        td(e.mode), td(e.user), td(e.group), td(new Date(e.mtimeMs).toLocaleString()),
        td(e.type === 'REGULAR' ? e.replication : '', 'num'));
  }));
}

async function showFile(path) {
  const f = await getJson('/status/api/file?path=' + encodeURIComponent(path));
  crumbs(f.path, true);
  document.getElementById('listing').hidden = true;
  document.getElementById('listing-more').hidden = true;
  document.getElementById('file').hidden = false;
  document.getElementById('file-path').textContent = f.path;
  fillGrid(document.getElementById('file-attrs'), [
    ['Size', bytes(f.size)], ['Inode', f.inode], ['Mode', f.mode], ['Owner', f.user + ':' + f.group],
    ['Replication', f.layout.replication], ['Stripe unit', bytes(f.layout.stripeUnit)],
    ['Stripe width', f.layout.stripeWidth], ['Chunk size', bytes(f.layout.chunkSize)],
    ['Being written', f.underConstruction ? 'yes' : 'no'],
  ]);
  fillRows(document.querySelector('#chunks tbody'), f.chunks.map((c) => el('tr', {},
      td(c.set, 'num'), td(c.index, 'num'), td(c.version, 'num'), td(bytes(c.length), 'num'),
      td(c.replicas.length === 0 ? 'no live replica' :
          c.replicas.map((r) => 'ds ' + r.server + ' @ ' + r.address + (r.rack ? ' (' + r.rack + ')' : '')).join(', '),
      c.replicas.length === 0 ? 'failed' : 'replicas'))));
}

// ---- the data server page ---------------------------------------------------------------------

async function pollDataServer() {
  const id = new URLSearchParams(location.search).get('id') || '';
  const d = await getJson('/status/api/ds' + (id ? '?id=' + encodeURIComponent(id) : ''));
  const s = await getJson('/status/api/summary');
  nav(s.mdsHere, s.localDataServers);
  document.getElementById('title').textContent = d.id;
  fillGrid(document.getElementById('summary'), [
    ['Id', d.id], ['Server id (from the MDS)', d.serverId], ['Address', d.address],
    ['MDS', d.mds.join(', ')], ['Cluster', d.clusterId], ['Capacity', bytes(d.capacityBytes)],
    ['Used', bytes(d.usedBytes)], ['Replicas', d.replicas],
    ['Scrub passes / corrupt found', d.scrubPasses + ' / ' + d.scrubCorruptFound],
  ]);
  fillRows(document.querySelector('#dirs tbody'), d.dirs.map((x) => el('tr', {},
      td(x.path), td(bytes(x.capacityBytes), 'num'), td(bytes(x.usedBytes), 'num'),
      td(bytes(x.availableBytes), 'num'), td(x.failed ? 'failed' : 'in use', x.failed ? 'failed' : ''))));
  fillWarnings(true, d.warnings);
  stamp();
  return d.id;
}

// ---- start ------------------------------------------------------------------------------------

function every(ms, f) {
  const run = () => f().catch((e) => notice('Cannot reach the server: ' + e.message));
  run();
  return setInterval(run, ms);
}

function start() {
  if (document.body.dataset.page === 'ds') {
    pollDataServer().then((id) => {
      every(5000, pollDataServer);
      every(2000, () => pollRates(id));
    }).catch((e) => notice(e.message));
    return;
  }
  every(5000, pollSummary);
  every(2000, () => pollRates(null));
  every(5000, async () => {
    const w = await getJson('/status/api/warnings');
    fillWarnings(w.available, w.lines);
  });
  window.addEventListener('hashchange', browse);
  browse();
}

document.addEventListener('DOMContentLoaded', start);
