/**
 * Typed calls over the Connect client from the generated descriptors (src/gen): the
 * request is encoded with protobuf-es `toJson` (lowerCamelCase names, enum values by
 * their full names, 64-bit integers as strings), answers decoded with `fromJson`
 * ignoring unknown fields and enum values, as the apiserver's own decoder does
 * (protojson DiscardUnknown). An answer that is not the method's message is a
 * bad_answer naming the method. callStreamKeepingJson also hands back each message's
 * JSON exactly as received (fields newer than our proto/ included), for what must reach
 * the installed OS as the server sent it (the allocation of Wait).
 */
import {
  create,
  fromJson,
  toJson,
  type DescMessage,
  type DescMethodServerStreaming,
  type DescMethodUnary,
  type JsonValue,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { BadAnswerError } from "../http/bad-answer.ts";
import type { CallOptions, ConnectClient, Decode, UnaryResult } from "./connect-client.ts";

/** "metalstack.infra.v2.BootService/Register" */
export const procedureOf = (m: { parent: { typeName: string }; name: string }): string => `${m.parent.typeName}/${m.name}`;

export function encodeRequest<D extends DescMessage>(schema: D, init: MessageInitShape<D>): JsonValue {
  return toJson(schema, create(schema, init));
}

export function decoder<D extends DescMessage>(schema: D): Decode<MessageShape<D>> {
  return (raw, what) => {
    try {
      return fromJson(schema, raw as JsonValue, { ignoreUnknownFields: true });
    } catch (e) {
      throw new BadAnswerError(`${what}: not a ${schema.typeName}: ${(e as Error).message}`, true, { message: schema.typeName }, { cause: e });
    }
  };
}

export function callUnary<I extends DescMessage, O extends DescMessage>(
  api: Pick<ConnectClient, "unary">,
  method: DescMethodUnary<I, O>,
  init: MessageInitShape<I>,
  opts?: CallOptions,
): Promise<UnaryResult<MessageShape<O>>> {
  return api.unary(procedureOf(method), encodeRequest(method.input, init), decoder(method.output), opts);
}

/** A decoded message and the JSON it was decoded from, as received (unknown fields kept). */
export interface WithJson<T> {
  readonly message: T;
  readonly json: JsonValue;
}

export function callStreamKeepingJson<I extends DescMessage, O extends DescMessage>(
  api: Pick<ConnectClient, "serverStream">,
  method: DescMethodServerStreaming<I, O>,
  init: MessageInitShape<I>,
  opts?: CallOptions,
): AsyncGenerator<WithJson<MessageShape<O>>, void, undefined> {
  const decode = decoder(method.output);
  return api.serverStream(procedureOf(method), encodeRequest(method.input, init), (raw, what) => ({ message: decode(raw, what), json: raw as JsonValue }), opts);
}

export function callStream<I extends DescMessage, O extends DescMessage>(
  api: Pick<ConnectClient, "serverStream">,
  method: DescMethodServerStreaming<I, O>,
  init: MessageInitShape<I>,
  opts?: CallOptions,
): AsyncGenerator<MessageShape<O>, void, undefined> {
  return api.serverStream(procedureOf(method), encodeRequest(method.input, init), decoder(method.output), opts);
}
