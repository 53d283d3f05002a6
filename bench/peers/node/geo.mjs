// Geohash key planning for the demo table's map items, written for the Apollo server.
//
//   place  PK = DgMa#<geohash[0:3]>      SK = <geohash[3:12]>#<id>
//   cell   PK = DgCe#<geohash[0:L-3]>    SK = <geohash[L-3:L]>      count, L = 3..8
//          PK = DgCe<L>#                 SK = <geohash[0:L]>        count, L = 1, 2
//
// Serving this table by hand needs the same planning the gateway does, or the Queries (and
// answers) differ: the heatmap's precision and one BETWEEN per count partition, and the
// marker search's cover of the view by geohash cells merged into at most 8 ranges. Cell
// numbers go past 32 bits (5 per character), so they are BigInts.

const ALPHABET = '0123456789bcdefghjkmnpqrstuvwxyz';
const INDEX = Object.fromEntries([...ALPHABET].map((c, i) => [c, i]));
const PLACES = 'DgMa';
const CELLS = 'DgCe';
export const KEY_MAX = '\uffff';
const PLACE_PARTITION = 3;
const PLACE_LENGTH = 12;
const CELL_MIN = 1;
const CELL_MAX = 8;
const SORT_KEY_LENGTH = 3;
const MAX_PLACE_SPAN = 0.5;
const DEFAULT_PARTITIONS = 4;
const MAX_PARTITIONS = 64;
const QUERY_BUDGET = 8;
const COVER_FRACTION = 8;

export class BadInput extends Error {}

// A box is [south, north, west, east], edges included, never across the antimeridian.

const latBits = (length) => Math.floor((5 * length) / 2);
const lonBits = (length) => Math.floor((5 * length + 1) / 2);

function cellSize(length) {
  return [180.0 / 2 ** latBits(length), 360.0 / 2 ** lonBits(length)];
}

function encode(lat, lon, length) {
  let latLo = -90.0, latHi = 90.0, lonLo = -180.0, lonHi = 180.0;
  let out = '', bits = 0, value = 0, even = true;
  while (out.length < length) {
    value <<= 1;
    if (even) {
      const mid = (lonLo + lonHi) / 2;
      if (lon >= mid) { value |= 1; lonLo = mid; } else { lonHi = mid; }
    } else {
      const mid = (latLo + latHi) / 2;
      if (lat >= mid) { value |= 1; latLo = mid; } else { latHi = mid; }
    }
    even = !even;
    if (++bits === 5) { out += ALPHABET[value]; bits = 0; value = 0; }
  }
  return out;
}

export function cellBox(geohash) {
  let row = 0, col = 0, even = true;
  for (const ch of geohash) {
    const i = INDEX[ch];
    const three = ((i >> 2) & 4) | ((i >> 1) & 2) | (i & 1);
    const two = ((i >> 2) & 2) | ((i >> 1) & 1);
    // rows and columns stay below 2^20 for the lengths read here: plain arithmetic is exact
    if (even) { col = col * 8 + three; row = row * 4 + two; } else { row = row * 8 + three; col = col * 4 + two; }
    even = !even;
  }
  const [dlat, dlon] = cellSize(geohash.length);
  const south = -90.0 + row * dlat, west = -180.0 + col * dlon;
  return [south, south + dlat, west, west + dlon];
}

export const intersects = (a, b) => a[0] <= b[1] && b[0] <= a[1] && a[2] <= b[3] && b[2] <= a[3];

function span(low, high, origin, size, last) {
  let first = Math.min(last, Math.max(0, Math.ceil((low - origin) / size) - 1));
  let end = Math.min(last, Math.max(0, Math.floor((high - origin) / size)));
  if (first < last && origin + (first + 1) * size < low) first += 1;
  if (end > 0 && origin + end * size > high) end -= 1;
  return [first, end]; // inclusive; empty when end < first
}

function gridSpan(box, length) {
  const [dlat, dlon] = cellSize(length);
  return [
    span(box[0], box[1], -90.0, dlat, 2 ** latBits(length) - 1),
    span(box[2], box[3], -180.0, dlon, 2 ** lonBits(length) - 1),
  ];
}

function cellsMeeting(box, length) {
  if (length === 0) return [''];
  const [dlat, dlon] = cellSize(length);
  const [[r0, r1], [c0, c1]] = gridSpan(box, length);
  const found = new Set();
  for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) {
    found.add(encode(-90.0 + (r + 0.5) * dlat, -180.0 + (c + 0.5) * dlon, length));
  }
  return [...found].filter((c) => intersects(cellBox(c), box)).sort();
}

export class View {
  constructor({ north, south, east, west }) {
    for (const v of [north, south]) if (!(v >= -90.0 && v <= 90.0)) throw new BadInput(`${v} is outside -90 to 90`);
    for (const v of [east, west]) if (!(v >= -180.0 && v <= 180.0)) throw new BadInput(`${v} is outside -180 to 180`);
    if (south > north) throw new BadInput(`south ${south} is north of north ${north}`);
    Object.assign(this, { north, south, east, west });
    this.boxes = west <= east
      ? [[south, north, west, east]]
      : [[south, north, west, 180.0], [south, north, -180.0, east]];
  }
  get width() { return this.west <= this.east ? this.east - this.west : 360.0 - this.west + this.east; }
  get height() { return this.north - this.south; }
  contains(lat, lon) { return this.boxes.some((b) => b[0] <= lat && lat <= b[1] && b[2] <= lon && lon <= b[3]); }
}

// ---- heatmap ------------------------------------------------------------------------------

const partitionLength = (length) => Math.max(0, length - SORT_KEY_LENGTH);

function partitionsNeeded(view, length) {
  const spans = view.boxes.map((b) => gridSpan(b, partitionLength(length)));
  const [r0, r1] = spans[0][0];
  const columns = new Set();
  for (const [, [c0, c1]] of spans) for (let c = c0; c <= c1; c++) columns.add(c);
  return Math.max(0, r1 - r0 + 1) * columns.size;
}

export function precision(view, asked) {
  if (asked == null) {
    for (let length = CELL_MAX; length >= CELL_MIN; length--) {
      if (partitionsNeeded(view, length) <= DEFAULT_PARTITIONS) return length;
    }
    return CELL_MIN;
  }
  if (!(asked >= CELL_MIN && asked <= CELL_MAX)) throw new BadInput(`${asked} is outside 1 to 8`);
  if (partitionsNeeded(view, asked) > MAX_PARTITIONS) throw new BadInput(`precision ${asked} needs too many partitions for this viewport`);
  return asked;
}

const cellPk = (cell) => (cell.length < SORT_KEY_LENGTH ? `${CELLS}${cell.length}#` : `${CELLS}#${cell.slice(0, cell.length - SORT_KEY_LENGTH)}`);
const cellSk = (cell) => cell.slice(Math.max(0, cell.length - SORT_KEY_LENGTH));
const clip = (a, b) => [Math.max(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.min(a[3], b[3])];

function corners(box, partition, length) {
  const [dlat, dlon] = cellSize(length);
  const p = cellBox(partition);
  // own rows/columns: [round(south), round(north)) — the values are whole numbers up to float error
  const ownRows = [Math.round((p[0] + 90.0) / dlat), Math.round((p[1] + 90.0) / dlat) - 1];
  const ownCols = [Math.round((p[2] + 180.0) / dlon), Math.round((p[3] + 180.0) / dlon) - 1];
  const [spanRows, spanCols] = gridSpan(box, length);
  const r0 = Math.max(spanRows[0], ownRows[0]), r1 = Math.min(spanRows[1], ownRows[1]);
  const c0 = Math.max(spanCols[0], ownCols[0]), c1 = Math.min(spanCols[1], ownCols[1]);
  return [
    encode(-90.0 + (r0 + 0.5) * dlat, -180.0 + (c0 + 0.5) * dlon, length),
    encode(-90.0 + (r1 + 0.5) * dlat, -180.0 + (c1 + 0.5) * dlon, length),
  ];
}

// One {pk, low, high, boxes} per count partition the view meets, in partition order.
export function heatmapPlan(view, length) {
  const parts = new Map();
  for (const box of view.boxes) {
    for (const partition of cellsMeeting(box, partitionLength(length))) {
      if (!parts.has(partition)) parts.set(partition, []);
      parts.get(partition).push(clip(cellBox(partition), box));
    }
  }
  return [...parts.keys()].sort().map((partition) => {
    const boxes = parts.get(partition);
    const cs = boxes.map((b) => corners(b, partition, length));
    let first = cs[0][0], last = cs[0][1];
    for (const [f, l] of cs) { if (f < first) first = f; if (l > last) last = l; }
    return { pk: cellPk(first), low: cellSk(first), high: cellSk(last), boxes };
  });
}

export const cellOf = (pk, sk) => pk.slice(pk.indexOf('#') + 1) + sk;

// ---- marker search -------------------------------------------------------------------------

export function checkPlaceView(view) {
  const limit = MAX_PLACE_SPAN + 1e-9;
  if (view.width > limit || view.height > limit) {
    throw new BadInput(`${view.width} by ${view.height} degrees is more than ${MAX_PLACE_SPAN} on a side: zoom in`);
  }
}

function coverDepth(view) {
  const longer = Math.max(view.height, view.width);
  const vh = Math.max(view.height, longer / 8), vw = Math.max(view.width, longer / 8);
  for (let length = PLACE_PARTITION; length <= PLACE_LENGTH; length++) {
    const [h, w] = cellSize(length);
    if (h <= vh / COVER_FRACTION && w <= vw / COVER_FRACTION) return length;
  }
  return PLACE_LENGTH;
}

function placed(value, bits, total, parity) {
  let out = 0n;
  for (let i = 0; i < bits; i++) {
    if (Math.floor(value / 2 ** (bits - 1 - i)) % 2 === 1) out |= 1n << BigInt(total - 1 - 2 * i - parity);
  }
  return out;
}

function cellNumbers(box, length) {
  const [[r0, r1], [c0, c1]] = gridSpan(box, length);
  const total = 5 * length;
  const rs = [], cs = [];
  for (let r = r0; r <= r1; r++) rs.push(placed(r, Math.floor(total / 2), total, 1));
  for (let c = c0; c <= c1; c++) cs.push(placed(c, Math.floor((total + 1) / 2), total, 0));
  const out = [];
  for (const r of rs) for (const c of cs) out.push(r | c);
  return out;
}

function suffix(index, digits) {
  let out = '';
  for (let i = 0; i < digits; i++) { out = ALPHABET[Number(index & 31n)] + out; index >>= 5n; }
  return out;
}

// {pk, low, high} of each Query that together read every place in the view.
export function placePlan(view) {
  const depth = coverDepth(view);
  const seen = new Set();
  for (const b of view.boxes) for (const n of cellNumbers(b, depth)) seen.add(n);
  const numbers = [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const shift = BigInt(5 * (depth - PLACE_PARTITION));
  const mask = (1n << shift) - 1n;
  const ranges = []; // [partition, low, high]
  let low = -2n, prev = -2n;
  for (const n of [...numbers, -2n]) {
    if (n !== prev + 1n || n >> shift !== prev >> shift) {
      if (prev >= 0n) ranges.push([prev >> shift, low & mask, prev & mask]);
      low = n;
    }
    prev = n;
  }
  while (ranges.length > QUERY_BUDGET) { // merge the closest two ranges of one partition
    let best = null;
    for (let i = 0; i + 1 < ranges.length; i++) {
      if (ranges[i][0] !== ranges[i + 1][0]) continue;
      const gap = ranges[i + 1][1] - ranges[i][2];
      if (best === null || gap < best[0]) best = [gap, i];
    }
    if (best === null) break;
    const i = best[1];
    ranges.splice(i, 2, [ranges[i][0], ranges[i][1], ranges[i + 1][2]]);
  }
  const digits = depth - PLACE_PARTITION;
  return ranges.map(([p, lo, hi]) => ({
    pk: `${PLACES}#${suffix(p, PLACE_PARTITION)}`,
    low: suffix(lo, digits),
    high: suffix(hi, digits) + KEY_MAX,
  }));
}
