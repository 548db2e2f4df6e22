/** Moved below both edges (src/http/): kept so the API's routes read as before. */
export { sendJson, sendOk, type Envelope } from "../http/envelope";
