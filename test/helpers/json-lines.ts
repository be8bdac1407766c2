/**
 * Reads a child's stderr as it comes: the whole text, and every line that parses as JSON
 * (the agent's log records) pushed to `records` in order. Text lines (the final error
 * line, a crash) stay only in the text. Resolves when the stream ends.
 */
export function readJsonLines<T>(stream: ReadableStream<Uint8Array>, records: T[]): { text: () => string; done: Promise<void> } {
  let text = "";
  const done = (async () => {
    const dec = new TextDecoder();
    let buf = "";
    for await (const chunk of stream) {
      const s = dec.decode(chunk, { stream: true });
      text += s;
      buf += s;
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          records.push(JSON.parse(line) as T);
        } catch {
          /* a text line: kept in the text only */
        }
      }
    }
  })();
  return { text: () => text, done };
}
