/** Injected so tests can move time (OTP expiry, the 30-minute session window, month rollover). */
export type Clock = { now(): Date }
export const systemClock: Clock = { now: () => new Date() }

export function monthStartUtc(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1))
}

export function nextMonthStartUtc(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))
}

export function secondsUntil(target: Date, from: Date): number {
  return Math.max(1, Math.ceil((target.getTime() - from.getTime()) / 1000))
}
