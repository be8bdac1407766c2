/** Polls `pred` until true or `ms` passed; the error says what was waited for. */
export { waitUntil as waitFor } from "../../lab/wait.ts";
