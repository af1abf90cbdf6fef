import { inflateRawSync } from 'node:zlib'
import { KEY_CLASSES, SIGNAL_KINDS, type Signal } from '../../../scoring/signals'

/**
 * The stored form of one batch's validated signals (session_batches.packed): a columnar binary
 * encoding, deflated. Decoding gives back exactly the validated events — same keys in the schema's
 * order, same values bit for bit (−0, floats, booleans, omitted fields) — which
 * tests/ingest/codec.test.ts proves by property.
 *
 * Layout before deflate (byte 0, the format version, stays outside the deflated part):
 *   varint n · n kind codes · n presence masks (varint, one bit per optional field) ·
 *   then one column per field in schema order, holding only the events that have it:
 *   t, x, y, dy (numbers) · kc (code) · tr (0/1) · ox, oy, p, r, n (numbers) · sc (code).
 * A number is a varint whose low 3 bits are a tag: 0–3 = a decimal with 0–3 digits, stored as the
 * zigzag delta of its scaled integer from the column's previous value (pointer streams move by a few
 * px per event, so most take one byte); 4 = a raw float64 (8 bytes follow) for anything else.
 * Columns, deltas and small codes are what lets deflate shrink a batch ~20× against its JSON.
 */
export const CODEC_VERSION = 1

const KIND_CODE: Record<string, number> = Object.fromEntries(SIGNAL_KINDS.map((k, i) => [k, i]))
const KEY_CLASS_CODE = new Map<string, number>(KEY_CLASSES.map((k, i) => [k, i]))
const SC_VALUES = [0, 1, false, true] as const
const SCALES = [1, 10, 100, 1000]
const FLOAT_TAG = 4

class Writer {
  buf: Uint8Array<ArrayBuffer>
  len = 0
  private readonly view8 = new DataView(new ArrayBuffer(8))

  /** `size`: the expected length, so a typical batch is written without growing the buffer. */
  constructor(size: number) {
    this.buf = new Uint8Array(size)
  }
  // The check on every write stays small; growing is rare.
  private room(n: number) {
    if (this.len + n > this.buf.length) this.grow(n)
  }
  private grow(n: number) {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n))
    next.set(this.buf.subarray(0, this.len))
    this.buf = next
  }
  byte(b: number) {
    this.room(1)
    this.buf[this.len++] = b
  }
  /** Unsigned integer up to 2^53, 7 bits a byte (arithmetic, not bitwise: values pass 2^31). */
  varint(v: number) {
    this.room(8)
    if (v < 128) {
      this.buf[this.len++] = v
      return
    }
    while (v >= 128) {
      this.buf[this.len++] = (v % 128) | 128
      v = Math.floor(v / 128)
    }
    this.buf[this.len++] = v
  }
  float(v: number) {
    this.room(8)
    this.view8.setFloat64(0, v, true)
    for (let i = 0; i < 8; i++) this.buf[this.len++] = this.view8.getUint8(i)
  }
}

class Reader {
  pos = 0
  readonly length: number
  private readonly view: DataView
  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
    this.length = buf.length
  }
  byte(): number {
    if (this.pos >= this.buf.length) throw new Error('packed signals: truncated')
    return this.buf[this.pos++]!
  }
  varint(): number {
    let v = 0
    let mul = 1
    for (;;) {
      const b = this.byte()
      v += (b & 127) * mul
      if (b < 128) return v
      mul *= 128
    }
  }
  float(): number {
    if (this.pos + 8 > this.buf.length) throw new Error('packed signals: truncated')
    const v = this.view.getFloat64(this.pos, true)
    this.pos += 8
    return v
  }
}

const zigzag = (d: number) => (d >= 0 ? d * 2 : -d * 2 - 1)
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2)

/** The value a number column decodes to, given the column's previous value. */
function scaled(prev: number, tag: number, zz: number): number {
  const s = SCALES[tag]!
  return (Math.round(prev * s) + unzigzag(zz)) / s
}

function writeNumber(w: Writer, prev: number, v: number): void {
  // Fast path, most values: whole numbers (exact in a double, so prev + d === v).
  if (Number.isInteger(v) && Number.isInteger(prev) && !Object.is(v, -0)) {
    const tagged = zigzag(v - prev) * 8
    if (Number.isSafeInteger(tagged)) {
      w.varint(tagged)
      return
    }
  }
  for (let tag = 0; tag < SCALES.length; tag++) {
    const s = SCALES[tag]!
    const d = Math.round(v * s) - Math.round(prev * s)
    const tagged = zigzag(d) * 8 + tag
    // Kept only when it decodes to exactly v (Object.is: −0 and every float edge case fall through to raw).
    if (Number.isSafeInteger(tagged) && Object.is(scaled(prev, tag, zigzag(d)), v)) {
      w.varint(tagged)
      return
    }
  }
  w.varint(FLOAT_TAG)
  w.float(v)
}

function readNumber(r: Reader, prev: number): number {
  const tagged = r.varint()
  const tag = tagged % 8
  if (tag === FLOAT_TAG) return r.float()
  if (tag >= SCALES.length) throw new Error('packed signals: bad number tag')
  return scaled(prev, tag, (tagged - tag) / 8)
}

// Bits of the presence mask, in the schema's key order.
const X = 1
const Y = 2
const DY = 4
const KC = 8
const TR = 16
const OX = 32
const OY = 64
const P = 128
const R = 256
const N = 512
const SC = 1024

/** Encodes validated signals (the ingest schema's output) for storage. */
export function packSignals(signals: readonly Signal[], level = 1): Uint8Array {
  return deflateColumns(encodeColumns(signals), level)
}

/**
 * The layout above before DEFLATE: a deterministic function of the validated events, and one-to-one
 * (unpackSignals gives the events back exactly), so its hash identifies a batch's events as well as
 * a hash of their JSON did, over ≈ 1/5 of the bytes and without a JSON.stringify (the retry key).
 */
export function encodeColumns(signals: readonly Signal[]): Uint8Array<ArrayBuffer> {
  const n = signals.length
  // ≈ 9 bytes an event for the side-by-side bench's pointer stream; odd values grow the buffer (doubling).
  const w = new Writer(n * 12 + 16)
  // One pass with static property names (a loop over field names costs ~5× more: keyed lookups).
  const masks = new Array<number>(n)
  const cols: number[][] = [[], [], [], [], [], [], [], [], [], [], []]
  const [xs, ys, dys, kcs, trs, oxs, oys, ps, rs, ns, scs] = cols as [
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
    number[],
  ]
  w.varint(n)
  for (let i = 0; i < n; i++) {
    const s = signals[i]!
    w.byte(KIND_CODE[s.k]!)
    let mask = 0
    if (s.x !== undefined) {
      mask |= X
      xs.push(s.x)
    }
    if (s.y !== undefined) {
      mask |= Y
      ys.push(s.y)
    }
    if (s.dy !== undefined) {
      mask |= DY
      dys.push(s.dy)
    }
    if (s.kc !== undefined) {
      mask |= KC
      kcs.push(KEY_CLASS_CODE.get(s.kc)!)
    }
    if (s.tr !== undefined) {
      mask |= TR
      trs.push(s.tr ? 1 : 0)
    }
    if (s.ox !== undefined) {
      mask |= OX
      oxs.push(s.ox)
    }
    if (s.oy !== undefined) {
      mask |= OY
      oys.push(s.oy)
    }
    if (s.p !== undefined) {
      mask |= P
      ps.push(s.p)
    }
    if (s.r !== undefined) {
      mask |= R
      rs.push(s.r)
    }
    if (s.n !== undefined) {
      mask |= N
      ns.push(s.n)
    }
    if (s.sc !== undefined) {
      mask |= SC
      scs.push(SC_VALUES.indexOf(s.sc))
    }
    masks[i] = mask
  }
  for (let i = 0; i < n; i++) w.varint(masks[i]!)
  let prev = 0
  for (let i = 0; i < n; i++) {
    const t = signals[i]!.t
    writeNumber(w, prev, t)
    prev = t
  }
  for (let f = 0; f < cols.length; f++) {
    const col = cols[f]!
    if (f === 3 || f === 4 || f === 10) for (let i = 0; i < col.length; i++) w.byte(col[i]!)
    else {
      prev = 0
      for (let i = 0; i < col.length; i++) {
        const v = col[i]!
        writeNumber(w, prev, v)
        prev = v
      }
    }
  }
  return w.buf.subarray(0, w.len)
}

/** The stored form of encodeColumns' bytes: the format version, then the layout deflated. */
export function deflateColumns(columns: Uint8Array<ArrayBuffer>, level = 1): Uint8Array {
  // Bun.deflateSync is raw DEFLATE (what inflateRawSync reads) without node:zlib's per-call stream set-up,
  // which was ≈ 5 % of the ingest service's CPU (bench/load-profile.ts profile).
  const body = Bun.deflateSync(columns, { level: level as Bun.ZlibCompressionOptions['level'] })
  const out = new Uint8Array(body.length + 1)
  out[0] = CODEC_VERSION
  out.set(body, 1)
  return out
}

function readCodes<T>(r: Reader, count: number, values: readonly T[]): T[] {
  const out = new Array<T>(count)
  for (let i = 0; i < count; i++) {
    const v = values[r.byte()]
    if (v === undefined) throw new Error('packed signals: bad code')
    out[i] = v
  }
  return out
}

function readNumbers(r: Reader, count: number): number[] {
  const out = new Array<number>(count)
  let prev = 0
  for (let i = 0; i < count; i++) prev = out[i] = readNumber(r, prev)
  return out
}

const bitCount = (masks: number[], bit: number) => masks.reduce((c, m) => c + (m & bit ? 1 : 0), 0)

/** Decodes a stored batch back into its signals, keys in the schema's order. */
export function unpackSignals(packed: Uint8Array): Signal[] {
  if (packed[0] !== CODEC_VERSION) throw new Error(`packed signals: unknown format ${packed[0]}`)
  const r = new Reader(inflateRawSync(packed.subarray(1)))
  const n = r.varint()
  const kinds = readCodes(r, n, SIGNAL_KINDS)
  const masks = new Array<number>(n)
  for (let i = 0; i < n; i++) masks[i] = r.varint()
  const times = readNumbers(r, n)
  const xs = readNumbers(r, bitCount(masks, X))
  const ys = readNumbers(r, bitCount(masks, Y))
  const dys = readNumbers(r, bitCount(masks, DY))
  const kcs = readCodes(r, bitCount(masks, KC), KEY_CLASSES)
  const trs = readCodes(r, bitCount(masks, TR), [false, true])
  const oxs = readNumbers(r, bitCount(masks, OX))
  const oys = readNumbers(r, bitCount(masks, OY))
  const ps = readNumbers(r, bitCount(masks, P))
  const rs = readNumbers(r, bitCount(masks, R))
  const ns = readNumbers(r, bitCount(masks, N))
  const scs = readCodes(r, bitCount(masks, SC), SC_VALUES)
  if (r.pos !== r.length) throw new Error('packed signals: trailing bytes')
  // Assigned in the schema's key order, so a decoded event is the validated one, key for key.
  const at = new Array<number>(11).fill(0)
  const out = new Array<Signal>(n)
  for (let i = 0; i < n; i++) {
    const m = masks[i]!
    const e: Signal = { t: times[i]!, k: kinds[i]! }
    if (m & X) e.x = xs[at[0]!++]
    if (m & Y) e.y = ys[at[1]!++]
    if (m & DY) e.dy = dys[at[2]!++]
    if (m & KC) e.kc = kcs[at[3]!++]
    if (m & TR) e.tr = trs[at[4]!++]
    if (m & OX) e.ox = oxs[at[5]!++]
    if (m & OY) e.oy = oys[at[6]!++]
    if (m & P) e.p = ps[at[7]!++]
    if (m & R) e.r = rs[at[8]!++]
    if (m & N) e.n = ns[at[9]!++]
    if (m & SC) e.sc = scs[at[10]!++]
    out[i] = e
  }
  return out
}
