// The console's languages (Simplified Chinese and English) and its times. Texts live in per-screen
// dictionaries: a module calls addTexts({ en: {...}, "zh-CN": {...} }) once when it loads (keys
// prefixed with its screen id, e.g. "players.find") and reads them with t(key, params). A key missing
// in the chosen language falls back to English, then to the key itself, so a screen that ships only
// English still works. The language is the operator's choice (remembered in localStorage), else the
// first of the browser's languages the console speaks.
export const LANGUAGES = [
  { id: "zh-CN", name: "中文" },
  { id: "en", name: "English" },
];
const STORAGE_KEY = "console.language";
const texts = { en: {}, "zh-CN": {} };

function readStored() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage refused (a locked-down browser): the browser's languages decide
  }
}

/** The stored choice, else the first browser language that is Chinese or English, else English. */
export function chooseLanguage(stored = readStored(), preferred = navigator.languages ?? [navigator.language]) {
  if (LANGUAGES.some((l) => l.id === stored)) return stored;
  for (const tag of preferred) {
    const lower = String(tag).toLowerCase();
    if (lower.startsWith("zh")) return "zh-CN";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

let current = chooseLanguage();

export const language = () => current;

export function setLanguage(id) {
  if (!LANGUAGES.some((l) => l.id === id)) return;
  current = id;
  try {
    localStorage.setItem(STORAGE_KEY, id);
  } catch {
    // not remembered; still switched for this page
  }
  document.documentElement.lang = id;
}

/** Registers a module's texts: { en: { key: text }, "zh-CN": { key: text } }. Later keys win. */
export function addTexts(dictionaries) {
  for (const [lang, entries] of Object.entries(dictionaries)) Object.assign((texts[lang] ??= {}), entries);
}

export const hasText = (key, lang = current) => key in (texts[lang] ?? {});

/** The text of `key` in the chosen language, `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const template = texts[current]?.[key] ?? texts.en[key] ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/**
 * What an operator reads for a failed call: the console's text for the API's machine code (in the
 * chosen language), else the server's own message; the code itself stays visible for a bug report.
 */
export function errorText(err) {
  const code = err?.code;
  const known = code && (hasText(`error.${code}`) || hasText(`error.${code}`, "en"));
  const ids = [...(err?.data?.currencies ?? []), ...(err?.data?.items ?? [])].join(", ");
  const text = known ? t(`error.${code}`, { ...(err.data ?? {}), ids }) : err?.message;
  return code ? `${text} (${code})` : String(text ?? "");
}

const pad = (n) => String(n).padStart(2, "0");

/** "UTC+08:00": the operator's zone offset at that instant (daylight saving included). */
export function zoneOf(date) {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes < 0 ? "-" : "+";
  return `UTC${sign}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/** An instant as "2026-11-28 20:15:03 (UTC+08:00)" in the browser's time zone; "—" for none. */
export function formatTime(value) {
  if (value === null || value === undefined || value === "") return "—";
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} (${zoneOf(date)})`;
}

/** The browser's zone name (e.g. Asia/Shanghai), shown once in the header. */
export const zoneName = () => Intl.DateTimeFormat().resolvedOptions().timeZone ?? zoneOf(new Date());

/** Currencies and items as "gems 50, potion ×1" (ids stay ids: they are the catalog's). */
export function describeGoods({ currencies = {}, items = [] }) {
  const parts = [...Object.entries(currencies).map(([id, n]) => `${id} ${n}`), ...items.map((i) => `${i.itemId} ×${i.count}`)];
  return parts.join(", ") || "—";
}
