/**
 * A small reader for .proto text, enough for the contract check: top-level messages
 * (with map fields and oneofs), enums and services; comments and `[...]` field
 * options are skipped (balanced), `option` and `reserved` statements ignored. It
 * reads the upstream files in ../shared/reference/metal-stack-api without needing
 * their imports (buf/validate is not available offline).
 */
export interface ProtoField {
  readonly name: string;
  readonly number: number;
  /** Scalar name ("string", "uint64") or the type as written ("MachineNic", "metalstack.api.v2.Image"); maps: "map<K,V>". */
  readonly type: string;
  readonly label: "singular" | "optional" | "repeated" | "map";
}

export interface ProtoMethod {
  readonly name: string;
  readonly input: string;
  readonly output: string;
  readonly serverStreaming: boolean;
  /** `option (x) = Y;` inside the rpc body, e.g. {"metalstack.api.v2.machine_roles": "MACHINE_ROLE_EDITOR"}. */
  readonly options: Readonly<Record<string, string>>;
}

export interface ProtoFile {
  readonly package: string;
  readonly messages: ReadonlyMap<string, readonly ProtoField[]>;
  readonly enums: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly services: ReadonlyMap<string, readonly ProtoMethod[]>;
}

function tokenize(text: string): string[] {
  const noComments = text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, " ");
  return noComments.match(/"(?:[^"\\]|\\.)*"|[A-Za-z_][\w.]*|-?\d+|[{}[\]()<>=;,.:]/g) ?? [];
}

class Cursor {
  i = 0;
  constructor(readonly t: readonly string[]) {}
  peek(): string | undefined {
    return this.t[this.i];
  }
  next(): string {
    const v = this.t[this.i++];
    if (v === undefined) throw new Error("unexpected end of .proto text");
    return v;
  }
  expect(s: string): void {
    const v = this.next();
    if (v !== s) throw new Error(`expected ${JSON.stringify(s)}, got ${JSON.stringify(v)} at token ${this.i}`);
  }
  /** Skips a balanced group starting at the current open token. */
  skipGroup(open: string, close: string): void {
    this.expect(open);
    let depth = 1;
    while (depth > 0) {
      const v = this.next();
      if (v === open) depth++;
      else if (v === close) depth--;
    }
  }
  skipStatement(): void {
    let depth = 0;
    for (;;) {
      const v = this.next();
      if (v === "{" || v === "[") depth++;
      else if (v === "}" || v === "]") depth--;
      if (depth === 0 && (v === ";" || v === "}")) return;
    }
  }
}

function parseField(c: Cursor, first: string, out: ProtoField[]): void {
  let label: ProtoField["label"] = "singular";
  let type = first;
  if (first === "optional" || first === "repeated" || first === "required") {
    label = first === "required" ? "singular" : first;
    type = c.next();
  }
  if (type === "map") {
    c.expect("<");
    const k = c.next();
    c.expect(",");
    const v = c.next();
    c.expect(">");
    type = `map<${k},${v}>`;
    label = "map";
  }
  const name = c.next();
  c.expect("=");
  const number = Number(c.next());
  if (c.peek() === "[") c.skipGroup("[", "]");
  c.expect(";");
  out.push({ name, number, type, label });
}

function parseMessage(c: Cursor): ProtoField[] {
  const fields: ProtoField[] = [];
  c.expect("{");
  for (;;) {
    const v = c.next();
    if (v === "}") return fields;
    if (v === ";") continue;
    if (v === "option" || v === "reserved" || v === "extensions") {
      c.skipStatement();
      continue;
    }
    if (v === "oneof") {
      c.next();
      c.expect("{");
      while (c.peek() !== "}") {
        const w = c.next();
        if (w === "option") c.skipStatement();
        else parseField(c, w, fields);
      }
      c.expect("}");
      continue;
    }
    if (v === "message" || v === "enum") throw new Error("nested messages/enums are not supported by this reader");
    parseField(c, v, fields);
  }
}

function parseEnum(c: Cursor): Map<string, number> {
  const values = new Map<string, number>();
  c.expect("{");
  for (;;) {
    const v = c.next();
    if (v === "}") return values;
    if (v === "option" || v === "reserved") {
      c.skipStatement();
      continue;
    }
    c.expect("=");
    values.set(v, Number(c.next()));
    if (c.peek() === "[") c.skipGroup("[", "]");
    c.expect(";");
  }
}

function parseService(c: Cursor): ProtoMethod[] {
  const methods: ProtoMethod[] = [];
  c.expect("{");
  for (;;) {
    const v = c.next();
    if (v === "}") return methods;
    if (v === "option") {
      c.skipStatement();
      continue;
    }
    if (v !== "rpc") throw new Error(`unexpected ${JSON.stringify(v)} in a service`);
    const name = c.next();
    c.expect("(");
    const input = c.next();
    c.expect(")");
    c.expect("returns");
    c.expect("(");
    let output = c.next();
    let serverStreaming = false;
    if (output === "stream") {
      serverStreaming = true;
      output = c.next();
    }
    c.expect(")");
    const options: Record<string, string> = {};
    if (c.peek() === "{") {
      c.next();
      while (c.peek() !== "}") {
        c.expect("option");
        c.expect("(");
        const opt = c.next();
        c.expect(")");
        c.expect("=");
        options[opt] = c.next();
        c.expect(";");
      }
      c.expect("}");
    } else c.expect(";");
    methods.push({ name, input, output, serverStreaming, options });
  }
}

export function parseProto(text: string): ProtoFile {
  const c = new Cursor(tokenize(text));
  let pkg = "";
  const messages = new Map<string, ProtoField[]>();
  const enums = new Map<string, Map<string, number>>();
  const services = new Map<string, ProtoMethod[]>();
  while (c.peek() !== undefined) {
    const v = c.next();
    if (v === "package") {
      pkg = c.next();
      c.expect(";");
    } else if (v === "message") messages.set(c.next(), parseMessage(c));
    else if (v === "enum") enums.set(c.next(), parseEnum(c));
    else if (v === "service") services.set(c.next(), parseService(c));
    else if (v === "extend") {
      c.next();
      c.skipGroup("{", "}");
    } else c.skipStatement();
  }
  return { package: pkg, messages, enums, services };
}
