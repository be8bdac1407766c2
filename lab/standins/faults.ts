/** Faults a stand-in can be told to produce, and the bookkeeping of how often. */
export interface Fault {
  /** Answer with this HTTP status (401, 404, 503, ...). */
  status?: number;
  /** Delay every answer by this much. */
  slowMs?: number;
  /** Image cache: send half the image, then cut the connection. */
  truncate?: boolean;
  /** Image cache: flip bytes in the image. */
  corrupt?: boolean;
  /** Image cache: no .sha256 sidecar (only .md5). */
  hideSha256?: boolean;
  /** apiserver Wait: end the stream with this connect error code. */
  streamError?: string;
  /** apiserver Wait: cut the stream inside an envelope. */
  streamTruncate?: boolean;
  /** How many requests get the fault (default: all until cleared). */
  count?: number;
}

export class FaultBox {
  #fault: Fault = {};
  #left = Infinity;

  set(f: Fault): void {
    this.#fault = { ...f };
    this.#left = f.count ?? Infinity;
  }

  clear(): void {
    this.set({});
  }

  /** The fault for this request (consumes one of `count`). */
  take(): Fault {
    if (this.#left <= 0) return {};
    if (Object.keys(this.#fault).filter((k) => k !== "count").length === 0) return {};
    this.#left -= 1;
    return this.#fault;
  }

  /** Faults that stay on regardless of count (hideSha256). */
  get standing(): Fault {
    return this.#fault;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
