/**
 * Kuaishou's `result` numbers. Unconfirmed: no domestic mini-game error list was found (§7.1). 1 is
 * documented; 100200100/100200101 are the token API's (§7.2); 240001/240002 are Kwai overseas's
 * code/secret errors (§7.3); blocked, rate-limited and busy are invented, plausible numbers.
 */
export const KUAISHOU_RESULTS = {
  ok: 1,
  badParams: 100200100,
  badApp: 100200101,
  invalidCode: 240001,
  badSecret: 240002,
  blocked: 240003,
  rateLimited: 100200103,
  busy: 100200500,
} as const;
