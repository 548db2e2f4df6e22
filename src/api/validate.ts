/** Moved below both edges (src/http/): kept so the API's routes read as before. */
export { parseInput } from "../http/validate";
