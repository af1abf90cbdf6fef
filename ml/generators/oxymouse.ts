// OxyMouse 1.0 (Oxylabs, MIT; github.com/oxylabs/OxyMouse), a Python library "for generating mouse
// movements" with "any browser control library": `OxyMouse(algorithm).generate_coordinates(from, to)`
// returns whole-pixel points, and its Playwright example plays them with `await page.mouse.move(x, y)`
// and `asyncio.sleep(uniform(0.001, 0.003))` between them. Its three algorithms with their defaults,
// re-implemented from its source (Python; read, not installed):
//   bezier    a Bézier of 4 control points (two drawn inside the start–target box, each moved by up to
//             ±100 px), 60 points at even steps of the curve's parameter (`duration` 1 s × 60)
//   gaussian  a quadratic Bézier (its control point drawn in the box) plus a random walk (60 steps of
//             N(0, 10) px) smoothed by a Gaussian filter (σ 2 samples) and rescaled to the mean and
//             spread the library calls human (half and a sixth of the distance); first and last point
//             pinned to the start and the target
//   perlin    fractal Perlin noise (6 octaves) sampled for one second of wall clock, every time.sleep(0.01),
//             scaled so its range spans the distance; it does not end at the target, so the click moves
//             there. The seed is a default argument drawn once when Python imports the module, so every
//             move of a script draws the same shape.
// A session uses one algorithm, as a script does. The eval scores each algorithm apart too.
import type { Signal } from '../../src/scoring/signals'
import type { Rng } from '../synth/prng'
import { roundTrip } from './libraries'
import { type Point, type Script, aimInMiddle, authorSleep, randomVisitOptions, runVisit, scriptedScroll } from './visit'

export const OXYMOUSE_ALGORITHMS = ['bezier', 'gaussian', 'perlin'] as const
export type OxyAlgorithm = (typeof OXYMOUSE_ALGORITHMS)[number]

/** numpy's astype(int) and Python's int(): toward zero */
const int = Math.trunc
const linspace = (n: number) => Array.from({ length: n }, (_, i) => (n === 1 ? 0 : i / (n - 1)))

/** BezierMouse.generate_bezier_mouse_movements(start, end), duration 1, complexity 4, randomness 1 */
export function oxyBezier(rng: Rng, from: Point, to: Point): Point[] {
  const control: Point[] = [from]
  for (let i = 0; i < 2; i++)
    control.push({
      x: rng.int(Math.min(from.x, to.x), Math.max(from.x, to.x)),
      y: rng.int(Math.min(from.y, to.y), Math.max(from.y, to.y)),
    })
  control.push(to)
  for (let i = 1; i < control.length - 1; i++)
    control[i] = { x: int(control[i]!.x + rng.uniform(-100, 100)), y: int(control[i]!.y + rng.uniform(-100, 100)) }
  const binom = [1, 3, 3, 1]
  return linspace(60).map((t) => {
    let x = 0
    let y = 0
    for (let i = 0; i < 4; i++) {
      const b = binom[i]! * t ** i * (1 - t) ** (3 - i)
      x += control[i]!.x * b
      y += control[i]!.y * b
    }
    return { x: int(x), y: int(y) }
  })
}

/** scipy.ndimage.gaussian_filter1d(data, sigma) with its defaults: mode 'reflect', truncate 4 */
function gaussianFilter(data: number[], sigma: number): number[] {
  const radius = Math.floor(4 * sigma + 0.5)
  const w = Array.from({ length: 2 * radius + 1 }, (_, k) => Math.exp(-0.5 * ((k - radius) / sigma) ** 2))
  const sum = w.reduce((a, b) => a + b, 0)
  const n = data.length
  // 'reflect': d c b a | a b c d | d c b a
  const at = (i: number): number => {
    let j = i
    while (j < 0 || j >= n) j = j < 0 ? -j - 1 : 2 * n - j - 1
    return data[j]!
  }
  return data.map((_, i) => w.reduce((acc, wk, k) => acc + wk * at(i + k - radius), 0) / sum)
}

/** (data − mean) / std × target_std + target_mean, numpy's population std */
function morph(data: number[], mean: number, std: number): number[] {
  const m = data.reduce((a, b) => a + b, 0) / data.length
  const s = Math.sqrt(data.reduce((a, b) => a + (b - m) ** 2, 0) / data.length)
  return data.map((v) => ((v - m) / s) * std + mean)
}

/** GaussianMouse.generate_gaussian_mouse_movements(start, end), duration 1, smoothness 2, randomness 1 */
export function oxyGaussian(rng: Rng, from: Point, to: Point): Point[] {
  const n = 60
  const walk = () => {
    let sum = 0
    return Array.from({ length: n }, () => (sum += rng.normal(0, 10)))
  }
  const rx = walk()
  const ry = walk()
  const mx = morph(gaussianFilter(rx, 2), (to.x - from.x) / 2, (to.x - from.x) / 6)
  const my = morph(gaussianFilter(ry, 2), (to.y - from.y) / 2, (to.y - from.y) / 6)
  const cx = rng.uniform(from.x, to.x)
  const cy = rng.uniform(from.y, to.y)
  const quad = (p0: number, p1: number, p2: number, t: number) => (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2
  const out = linspace(n).map((t, i) => ({ x: int(quad(from.x, cx, to.x, t) + mx[i]!), y: int(quad(from.y, cy, to.y, t) + my[i]!) }))
  out[0] = { x: from.x, y: from.y }
  out[n - 1] = { x: to.x, y: to.y }
  return out
}

// ---- Perlin "improved" noise as the `noise` package (Casey Duncan, MIT; noise 1.2) computes pnoise2:
// its permutation (Ken Perlin's) and gradient tables; float32 there, float64 here

const PERM_BASE = [
  151, 160, 137, 91, 90, 15, 131, 13, 201, 95, 96, 53, 194, 233, 7, 225, 140, 36, 103, 30, 69, 142, 8, 99, 37, 240, 21, 10, 23, 190, 6, 148,
  247, 120, 234, 75, 0, 26, 197, 62, 94, 252, 219, 203, 117, 35, 11, 32, 57, 177, 33, 88, 237, 149, 56, 87, 174, 20, 125, 136, 171, 168, 68,
  175, 74, 165, 71, 134, 139, 48, 27, 166, 77, 146, 158, 231, 83, 111, 229, 122, 60, 211, 133, 230, 220, 105, 92, 41, 55, 46, 245, 40, 244,
  102, 143, 54, 65, 25, 63, 161, 1, 216, 80, 73, 209, 76, 132, 187, 208, 89, 18, 169, 200, 196, 135, 130, 116, 188, 159, 86, 164, 100, 109,
  198, 173, 186, 3, 64, 52, 217, 226, 250, 124, 123, 5, 202, 38, 147, 118, 126, 255, 82, 85, 212, 207, 206, 59, 227, 47, 16, 58, 17, 182,
  189, 28, 42, 223, 183, 170, 213, 119, 248, 152, 2, 44, 154, 163, 70, 221, 153, 101, 155, 167, 43, 172, 9, 129, 22, 39, 253, 19, 98, 108,
  110, 79, 113, 224, 232, 178, 185, 112, 104, 218, 246, 97, 228, 251, 34, 242, 193, 238, 210, 144, 12, 191, 179, 162, 241, 81, 51, 145, 235,
  249, 14, 239, 107, 49, 192, 214, 31, 181, 199, 106, 157, 184, 84, 204, 176, 115, 121, 50, 45, 127, 4, 150, 254, 138, 236, 205, 93, 222,
  114, 67, 29, 24, 72, 243, 141, 128, 195, 78, 66, 215, 61, 156, 180,
]
export const PERLIN_PERM: readonly number[] = [...PERM_BASE, ...PERM_BASE]
const GRAD: readonly (readonly [number, number])[] = [
  [1, 1],
  [-1, 1],
  [1, -1],
  [-1, -1],
  [1, 0],
  [-1, 0],
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
  [0, 1],
  [0, -1],
  [1, 0],
  [-1, 0],
  [0, -1],
  [0, 1],
]
const grad2 = (hash: number, x: number, y: number) => {
  const g = GRAD[hash & 15]!
  return x * g[0] + y * g[1]
}
const lerp = (t: number, a: number, b: number) => a + t * (b - a)
const fade = (t: number) => t * t * t * (t * (t * 6 - 15) + 10)
/** C's fmodf: the remainder with the dividend's sign */
const fmod = (a: number, b: number) => a % b

function noise2(x: number, y: number, repeatx: number, repeaty: number): number {
  const P = PERLIN_PERM
  let i = Math.floor(fmod(x, repeatx))
  let j = Math.floor(fmod(y, repeaty))
  let ii = Math.trunc(fmod(i + 1, repeatx))
  let jj = Math.trunc(fmod(j + 1, repeaty))
  i &= 255
  j &= 255
  ii &= 255
  jj &= 255
  const fx0 = x - Math.floor(x)
  const fy0 = y - Math.floor(y)
  const fx = fade(fx0)
  const fy = fade(fy0)
  const A = P[i]!
  const AA = P[A + j]!
  const AB = P[A + jj]!
  const B = P[ii]!
  const BA = P[B + j]!
  const BB = P[B + jj]!
  return lerp(
    fy,
    lerp(fx, grad2(P[AA]!, fx0, fy0), grad2(P[BA]!, fx0 - 1, fy0)),
    lerp(fx, grad2(P[AB]!, fx0, fy0 - 1), grad2(P[BB]!, fx0 - 1, fy0 - 1))
  )
}

/** pnoise2(x, y, octaves, persistence): fractal sum, each octave twice the frequency */
export function pnoise2(x: number, y: number, octaves = 1, persistence = 0.5): number {
  if (octaves === 1) return noise2(x, y, 1024, 1024)
  let freq = 1
  let amp = 1
  let max = 0
  let total = 0
  for (let o = 0; o < octaves; o++) {
    total += noise2(x * freq, y * freq, 1024 * freq, 1024 * freq) * amp
    max += amp
    freq *= 2
    amp *= persistence
  }
  return total / max
}

/**
 * PerlinMouse.generate_coordinates(from, to): one second of samples, `tick()` ms apart (time.sleep(0.01)
 * and the loop's own time), then scaled. Returns the points and the wall-clock time the generation took.
 */
export function oxyPerlin(seed: number, tick: () => number, from: Point, to: Point): { points: Point[]; ms: number } {
  const raw: Point[] = []
  let elapsed = 0
  while (elapsed < 1000) {
    const t = elapsed / 1000
    raw.push({ x: int(((pnoise2(t, seed, 6, 0.5) + 1) / 2) * 1920), y: int(((pnoise2(t, seed + 1, 6, 0.5) + 1) / 2) * 1080) })
    elapsed += tick()
  }
  const xs = raw.map((p) => p.x)
  const ys = raw.map((p) => p.y)
  // a range of zero divides by zero in Python (the script fails); here the axis just stays put
  const span = (v: number[]) => Math.max(...v) - Math.min(...v) || Number.POSITIVE_INFINITY
  const sx = (to.x - from.x) / span(xs)
  const sy = (to.y - from.y) / span(ys)
  const points = raw.map((p) => ({ x: int(from.x + (p.x - raw[0]!.x) * sx), y: int(from.y + (p.y - raw[0]!.y) * sy) }))
  return { points, ms: elapsed }
}

function oxyMouseScript(rng: Rng, algorithm: OxyAlgorithm): Script {
  const rtt = roundTrip(rng)
  const extra = authorSleep(rng)
  // random.randint(0, 100000) as a default argument: evaluated once, when the module is imported
  const seed = rng.int(0, 100_000)
  // time.sleep(0.01) plus the loop's work; Windows before Python 3.11 waits for its 15.6 ms tick
  const windowsTick = rng.chance(0.3)
  const tick = () => (windowsTick ? 15.625 : 10 + rng.uniform(0.06, 0.6))
  return {
    moveTo(visit, dest) {
      const from = { x: Math.round(visit.pos.x), y: Math.round(visit.pos.y) }
      const to = { x: Math.round(dest.x), y: Math.round(dest.y) }
      let points: Point[]
      if (algorithm === 'perlin') {
        const made = oxyPerlin(seed, tick, from, to)
        // the generation sleeps through its second of samples before the first move
        visit.sleep(made.ms)
        points = made.points
      } else points = algorithm === 'bezier' ? oxyBezier(rng, from, to) : oxyGaussian(rng, from, to)
      // the click that follows moves to the target first (page.mouse.click); the same pixel sends nothing
      const last = points[points.length - 1]
      if (!last || last.x !== to.x || last.y !== to.y) points.push(to)
      visit.playPath(points, () => rtt() + rng.uniform(1, 3))
    },
    // a point inside the element's box, as scripts compute it from bounding_box()
    aim: aimInMiddle(rng),
    // page.mouse.click: down and up with no delay between them
    hold: rtt,
    hesitate: rtt,
    sleep: extra,
    scroll: rng.chance(0.4) ? (visit) => scriptedScroll(rng, visit) : undefined,
    hover: 0.2,
  }
}

/** a page visit by a script driving the browser with one of OxyMouse's algorithms */
export const oxyMouseVisit =
  (algorithm?: OxyAlgorithm) =>
  (rng: Rng): Signal[] =>
    runVisit(rng, oxyMouseScript(rng, algorithm ?? rng.pick(OXYMOUSE_ALGORITHMS)), randomVisitOptions(rng))
