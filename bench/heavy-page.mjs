// The benchmark's heavy page (docs/benchmark.md), generated deterministically: the same bytes
// on every run and machine (a fixed-seed PRNG, no clock, no locale).
//
//   node bench/heavy-page.mjs OUT_DIR     writes OUT_DIR/index.html and OUT_DIR/manifest.json
//
// 5,000 visible interactive controls, each with a unique accessible name:
//   80 navigation links
//   100 prose sections x 38 controls (20 inline links, 6 buttons, 4 text fields,
//     4 checkboxes, 2 selects, 2 radios)                                        = 3,800
//   a 200-row table, a checkbox and a button per row                           =   400
//   24 widgets with open shadow roots nested three deep, 10 controls per level =   720
// and about 200 KB of prose in the sections' paragraphs.

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SEED = 0x5eed1234;
const NAV_LINKS = 80;
const SECTIONS = 100;
const PARAGRAPHS_PER_SECTION = 4;
const LINKS_PER_SECTION = 20;
const PROSE_BYTES_PER_SECTION = 1800; // at least, per section; paragraph text without links
const TABLE_ROWS = 200;
const WIDGETS = 24;
const SHADOW_DEPTH = 3;
const CONTROLS_PER_SHADOW_LEVEL = 10;

// mulberry32: a small, well-known 32-bit PRNG; fixed seed, so the page never changes.
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'account action address agent answer archive audit balance basket batch browser budget ' +
  'buyer cabinet calendar campaign carrier catalog channel checkout client column comment ' +
  'contract courier credit customer dashboard delivery deposit detail device discount ' +
  'dispatch document draft estimate export feature filter forecast freight gateway harbor ' +
  'history invoice journal kettle ledger license listing manifest margin market member ' +
  'merchant message method module notice office option order package parcel partner ' +
  'payment period pipeline policy portal preview profile project quota rebate receipt ' +
  'record refund region report request reserve return review route schedule section ' +
  'segment seller service session shipment signal source status storage summary supplier ' +
  'support survey system tariff ticket timeline transfer update upload vendor voucher ' +
  'warehouse window workflow quietly rapidly carefully monthly weekly seasonal regional ' +
  'pending settled verified approved archived rejected the a of to and in for with on by ' +
  'from after before under over between during against within without'
).split(' ');

const VERBS = ['Save', 'Share', 'Archive', 'Approve', 'Reject', 'Export'];

const rand = mulberry32(SEED);
const pick = (list) => list[Math.floor(rand() * list.length)];
const capitalize = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function sentence() {
  const length = 8 + Math.floor(rand() * 14);
  const words = [];
  for (let i = 0; i < length; i++) words.push(pick(WORDS));
  return capitalize(words.join(' ')) + '.';
}

// Prose of about `bytes` bytes (ASCII, so characters are bytes).
function prose(bytes) {
  let text = '';
  while (text.length < bytes) text += (text ? ' ' : '') + sentence();
  return text;
}

const counts = { links: 0, buttons: 0, textboxes: 0, checkboxes: 0, comboboxes: 0, radios: 0 };
let proseBytes = 0;

function navigation() {
  const items = [];
  for (let i = 1; i <= NAV_LINKS; i++) {
    items.push(`<li><a href="/area/${i}">Area ${i}</a></li>`);
    counts.links += 1;
  }
  return `<header><h1>Veetbot benchmark: operations handbook</h1>` +
         `<nav aria-label="Areas"><ul>${items.join('')}</ul></nav></header>`;
}

function section(k) {
  const out = [`<section id="s${k}"><h2>Section ${k}: ${capitalize(pick(WORDS))} ${pick(WORDS)}</h2>`];
  // Paragraphs with five inline links each.
  const linksPerParagraph = LINKS_PER_SECTION / PARAGRAPHS_PER_SECTION;
  for (let p = 0; p < PARAGRAPHS_PER_SECTION; p++) {
    const chunk = prose(PROSE_BYTES_PER_SECTION / PARAGRAPHS_PER_SECTION);
    proseBytes += chunk.length;
    const pieces = chunk.split('. ');
    const html = [];
    for (let i = 0; i < Math.max(pieces.length, linksPerParagraph); i++) {
      if (i < pieces.length) html.push(pieces[i] + (i + 1 < pieces.length ? '.' : ''));
      if (i < linksPerParagraph) {
        const j = p * linksPerParagraph + i + 1;
        html.push(` <a href="/doc/${k}/${j}">${pick(WORDS)} ${pick(WORDS)} ${k}.${j}</a>`);
        counts.links += 1;
      }
    }
    out.push(`<p>${html.join(' ')}</p>`);
  }
  // A form row of controls.
  const form = [`<form class="row" action="/submit" onsubmit="return false">`];
  for (let i = 0; i < VERBS.length; i++) {
    form.push(`<button type="button">${VERBS[i]} ${k}.${i + 1}</button>`);
    counts.buttons += 1;
  }
  for (let i = 1; i <= 4; i++) {
    form.push(`<label>Field ${k}.${i} <input type="text" name="f${k}_${i}" ` +
              `placeholder="${pick(WORDS)}"></label>`);
    counts.textboxes += 1;
  }
  for (let i = 1; i <= 4; i++) {
    form.push(`<label><input type="checkbox" name="c${k}_${i}"${i % 2 ? ' checked' : ''}> ` +
              `Include ${pick(WORDS)} ${k}.${i}</label>`);
    counts.checkboxes += 1;
  }
  for (let i = 1; i <= 2; i++) {
    form.push(`<label>Choice ${k}.${i} <select name="s${k}_${i}">` +
              `<option>${pick(WORDS)}</option><option>${pick(WORDS)}</option>` +
              `<option>${pick(WORDS)}</option></select></label>`);
    counts.comboboxes += 1;
  }
  for (let i = 1; i <= 2; i++) {
    form.push(`<label><input type="radio" name="r${k}"${i === 1 ? ' checked' : ''}> ` +
              `Mode ${k}.${i}</label>`);
    counts.radios += 1;
  }
  form.push('</form>');
  out.push(form.join(''), '</section>');
  return out.join('');
}

function table() {
  const rows = [];
  for (let r = 1; r <= TABLE_ROWS; r++) {
    const qty = 1 + Math.floor(rand() * 99);
    const price = (1 + Math.floor(rand() * 99999)) / 100;
    rows.push(`<tr><td><input type="checkbox" aria-label="Select row ${r}"></td>` +
              `<td>SKU-${String(r).padStart(5, '0')}</td><td>${capitalize(pick(WORDS))} ` +
              `${pick(WORDS)}</td><td>${qty}</td><td>${price.toFixed(2)}</td>` +
              `<td><button type="button">Edit row ${r}</button></td></tr>`);
    counts.checkboxes += 1;
    counts.buttons += 1;
  }
  return `<section id="inventory"><h2>Inventory</h2><table><caption>Inventory, ${TABLE_ROWS} ` +
         `rows</caption><thead><tr><th>Select</th><th>SKU</th><th>Product</th><th>Qty</th>` +
         `<th>Price</th><th>Action</th></tr></thead><tbody>${rows.join('')}</tbody></table>` +
         `</section>`;
}

function widgetHost(w) {
  // Each level: 4 buttons, 3 links, 2 text fields, 1 checkbox; built by the script below.
  counts.buttons += 4 * SHADOW_DEPTH;
  counts.links += 3 * SHADOW_DEPTH;
  counts.textboxes += 2 * SHADOW_DEPTH;
  counts.checkboxes += 1 * SHADOW_DEPTH;
  return `<bench-widget data-widget="${w}"></bench-widget>`;
}

// Builds the open shadow roots (Chromium 102 has no shadowrootmode attribute, so a script
// does it). Deterministic: names come from the widget and level numbers only.
const WIDGET_SCRIPT = `<script>
(function () {
  function level(parent, w, depth) {
    var root = parent.attachShadow({mode: 'open'});
    var box = document.createElement('div');
    var title = document.createElement('h3');
    title.textContent = 'Widget ' + w + ' level ' + depth;
    box.appendChild(title);
    var note = document.createElement('p');
    note.textContent = 'Shadow content of widget ' + w + ' at depth ' + depth + '.';
    box.appendChild(note);
    for (var i = 1; i <= 4; i++) {
      var b = document.createElement('button');
      b.type = 'button'; b.textContent = 'Widget ' + w + '.' + depth + ' button ' + i;
      box.appendChild(b);
    }
    for (var i = 1; i <= 3; i++) {
      var a = document.createElement('a');
      a.href = '/widget/' + w + '/' + depth + '/' + i;
      a.textContent = 'Widget ' + w + '.' + depth + ' link ' + i;
      box.appendChild(a);
    }
    for (var i = 1; i <= 2; i++) {
      var t = document.createElement('input');
      t.type = 'text'; t.setAttribute('aria-label', 'Widget ' + w + '.' + depth + ' field ' + i);
      box.appendChild(t);
    }
    var c = document.createElement('input');
    c.type = 'checkbox'; c.setAttribute('aria-label', 'Widget ' + w + '.' + depth + ' toggle');
    box.appendChild(c);
    root.appendChild(box);
    if (depth < ${SHADOW_DEPTH}) {
      var inner = document.createElement('div');
      root.appendChild(inner);
      level(inner, w, depth + 1);
    }
  }
  var hosts = document.querySelectorAll('bench-widget');
  for (var h = 0; h < hosts.length; h++)
    level(hosts[h], hosts[h].getAttribute('data-widget'), 1);
})();
</script>`;

export function generate() {
  const body = [navigation(), '<main>'];
  let widget = 0;
  for (let k = 1; k <= SECTIONS; k++) {
    body.push(section(k));
    if (k % 4 === 2 && widget < WIDGETS) body.push(widgetHost(++widget));
    if (k === SECTIONS / 2) body.push(table());
  }
  body.push('</main><footer><p>End of the handbook.</p></footer>');
  const html = '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
               '<title>Veetbot benchmark: heavy page</title>' +
               '<style>body{font:14px/1.4 sans-serif;margin:16px}form.row{margin:8px 0}' +
               'label{margin-right:8px}bench-widget{display:block}</style></head><body>' +
               body.join('\n') + WIDGET_SCRIPT + '</body></html>\n';
  const controls = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    html,
    manifest: {
      seed: SEED,
      html_bytes: Buffer.byteLength(html),
      controls,
      counts: { ...counts },
      prose_bytes: proseBytes,
      table_rows: TABLE_ROWS,
      shadow_widgets: WIDGETS,
      shadow_depth: SHADOW_DEPTH,
      shadow_controls: WIDGETS * SHADOW_DEPTH * CONTROLS_PER_SHADOW_LEVEL,
    },
  };
}

if (process.argv[1] && process.argv[1].endsWith('heavy-page.mjs')) {
  const out = process.argv[2];
  if (!out) {
    console.error('usage: node heavy-page.mjs OUT_DIR');
    process.exit(2);
  }
  const { html, manifest } = generate();
  if (manifest.controls !== 5000) {
    console.error(`heavy-page: ${manifest.controls} controls, expected 5000`);
    process.exit(1);
  }
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'index.html'), html);
  writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  console.log(JSON.stringify(manifest));
}
