/** The studio's calendar day of a moment, `YYYY-MM-DD`, in an IANA time zone (STUDIO_TIME_ZONE). */
const formats = new Map<string, Intl.DateTimeFormat>();

export function studioDay(ms: number, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    // en-CA writes dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
    formats.set(timeZone, format);
  }
  return format.format(new Date(ms));
}
