// WindMouse (Benjamin Land, 2005; described at ben.land/post/2021/04/25/windmouse-human-mouse-movement):
// the cursor is a particle pulled toward the target by gravity and pushed by a
// random wind that calms near the target, with its step length clipped.
//
// Two versions, both as bot authors use them:
//  - `windMouseNpm`: the npm package `windmouse` 1.0.5 (arevi, MIT), line for
//    line. Its GeneratePoints() is async, so it cannot serve a synchronous,
//    seeded generator; this copy is checked against it in the tests (same
//    random stream → same points). Its quirks are kept: one wind draw for both
//    axes (the wind blows along the diagonal), integer points, and a wait per
//    step proportional to the step length.
//  - `windMouseLand`: the author's own Python version from that post, with an
//    independent wind per axis; it has no timing (the caller sleeps per step).
export type WindSettings = {
  startX: number
  startY: number
  endX: number
  endY: number
  gravity: number
  wind: number
  minWait: number
  maxWait: number
  maxStep: number
  targetArea: number
}

/** [x, y, cumulative wait ms] per step, as windmouse@1.0.5 GeneratePoints() resolves them */
export function windMouseNpm(random: () => number, input: WindSettings): [number, number, number][] {
  const s = { ...input }
  if (s.gravity < 1) s.gravity = 1
  if (s.maxStep === 0) s.maxStep = 0.01
  let windX = Math.floor(random() * 10)
  let windY = Math.floor(random() * 10)
  let velocityX = 0
  let velocityY = 0
  let newX = Math.round(s.startX)
  let newY = Math.round(s.startY)
  const waitDiff = s.maxWait - s.minWait
  const sqrt2 = Math.sqrt(2)
  const sqrt3 = Math.sqrt(3)
  const sqrt5 = Math.sqrt(5)
  const points: [number, number, number][] = []
  let currentWait = 0
  let dist = Math.hypot(s.endX - s.startX, s.endY - s.startY)
  // the package has no step limit; a guard keeps a pathological setting from looping for ever
  for (let guard = 0; dist > 1 && guard < 20_000; guard++) {
    s.wind = Math.min(s.wind, dist)
    if (dist >= s.targetArea) {
      const w = Math.floor(random() * Math.round(s.wind) * 2 + 1)
      windX = windX / sqrt3 + (w - s.wind) / sqrt5
      windY = windY / sqrt3 + (w - s.wind) / sqrt5
    } else {
      windX = windX / sqrt2
      windY = windY / sqrt2
      if (s.maxStep < 3) s.maxStep = Math.floor(random() * 3) + 3
      else s.maxStep = s.maxStep / sqrt5
    }
    velocityX += windX
    velocityY += windY
    velocityX = velocityX + (s.gravity * (s.endX - s.startX)) / dist
    velocityY = velocityY + (s.gravity * (s.endY - s.startY)) / dist
    if (Math.hypot(velocityX, velocityY) > s.maxStep) {
      const randomDist = s.maxStep / 2 + Math.floor((random() * Math.round(s.maxStep)) / 2)
      const veloMag = Math.hypot(velocityX, velocityY)
      velocityX = (velocityX / veloMag) * randomDist
      velocityY = (velocityY / veloMag) * randomDist
    }
    const oldX = Math.round(s.startX)
    const oldY = Math.round(s.startY)
    s.startX += velocityX
    s.startY += velocityY
    dist = Math.hypot(s.endX - s.startX, s.endY - s.startY)
    newX = Math.round(s.startX)
    newY = Math.round(s.startY)
    const step = Math.hypot(s.startX - oldX, s.startY - oldY)
    currentWait += Math.round(waitDiff * (step / s.maxStep) + s.minWait)
    if (oldX !== newX || oldY !== newY) points.push([newX, newY, currentWait])
  }
  const endX = Math.round(s.endX)
  const endY = Math.round(s.endY)
  if (endX !== newX || endY !== newY) points.push([newX, newY, currentWait])
  return points
}

export type LandSettings = { gravity: number; wind: number; maxStep: number; dampedDistance: number }

/** Land's published defaults: G_0 = 9, W_0 = 3, M_0 = 15, D_0 = 12 */
export const LAND_DEFAULTS: LandSettings = { gravity: 9, wind: 3, maxStep: 15, dampedDistance: 12 }

/** the integer cursor positions WindMouse moves through, Land's version */
export function windMouseLand(
  random: () => number,
  from: { x: number; y: number },
  to: { x: number; y: number },
  settings: LandSettings = LAND_DEFAULTS
): { x: number; y: number }[] {
  const sqrt3 = Math.sqrt(3)
  const sqrt5 = Math.sqrt(5)
  let { x, y } = from
  let cx = Math.round(x)
  let cy = Math.round(y)
  let vx = 0
  let vy = 0
  let wx = 0
  let wy = 0
  let maxStep = settings.maxStep
  const out: { x: number; y: number }[] = []
  for (let guard = 0; guard < 20_000; guard++) {
    const dist = Math.hypot(to.x - x, to.y - y)
    if (dist < 1) break
    const wMag = Math.min(settings.wind, dist)
    if (dist >= settings.dampedDistance) {
      wx = wx / sqrt3 + ((2 * random() - 1) * wMag) / sqrt5
      wy = wy / sqrt3 + ((2 * random() - 1) * wMag) / sqrt5
    } else {
      wx /= sqrt3
      wy /= sqrt3
      if (maxStep < 3) maxStep = random() * 3 + 3
      else maxStep /= sqrt5
    }
    vx += wx + (settings.gravity * (to.x - x)) / dist
    vy += wy + (settings.gravity * (to.y - y)) / dist
    const vMag = Math.hypot(vx, vy)
    if (vMag > maxStep) {
      const clip = maxStep / 2 + (random() * maxStep) / 2
      vx = (vx / vMag) * clip
      vy = (vy / vMag) * clip
    }
    x += vx
    y += vy
    const mx = Math.round(x)
    const my = Math.round(y)
    if (mx !== cx || my !== cy) {
      cx = mx
      cy = my
      out.push({ x: cx, y: cy })
    }
  }
  return out
}
